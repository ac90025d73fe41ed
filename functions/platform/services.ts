/**
 * What handlers use, built once per instance by a composition root: adapters
 * plus the per-instance caches. The local node builds all of it
 * (functions/local/adapters.ts, withInstanceState); each Lambda entry
 * (functions/aws/http/, functions/aws/workers/) builds only the parts
 * its routes read, through the same builders (instance-state.ts, collector-state.ts).
 */
import type { SiteDataStore } from '#ports/site-data.ts';
import type { Config } from './config.ts';
import type { IconStore } from '#ports/icon-store.ts';
import type { Clock } from '#ports/clock.ts';
import type { Timers } from '#ports/scheduler.ts';
import type { LiveCadence } from '#domain/live/live-stream.ts';
import type { Registry } from '#ports/registry.ts';
import type { TokenVerifier } from '#ports/token-verifier.ts';
import type { PageChecker } from '#ports/page-checker.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { Queue } from '#ports/queue.ts';
import type { HeldRows } from '#ports/held-rows.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import type { Mailer } from '#ports/mailer.ts';
import type { ImportChunkMessage, ImportJobs } from '#ports/import-jobs.ts';
import type { ImportSourceClient } from '#ports/import-source.ts';
import type { SecretBox } from '#ports/secret-box.ts';
import type { GoogleSearchClient, SearchStatsStore } from '#ports/search-console.ts';
import type { CrawlerHitStore } from '#ports/crawler-hits.ts';
import type { RowExportStore } from '#ports/row-export.ts';
import type { CloudflareClient } from '#ports/cloudflare.ts';
import { DropCounts } from '#domain/recent-drops.ts';
import { collectorState, type CollectorState } from './collector-state.ts';
import { MiB, checkState, keyState, nowOf, siteCaches, type KeyState, type SiteCaches } from './instance-state.ts';
import type { SiteCheckState } from '#domain/site-checks.ts';

export interface Adapters {
  config: Readonly<Config>;
  clock: Clock;
  registry: Registry;
  tokens: TokenVerifier;
  pageChecker: PageChecker;
  /** Origins browsers load latest.js from (PUBLIC_URL; locally its default is set once the server listens). */
  publicOrigins: readonly string[];
  /** Collected rows on their way to the event store. */
  eventQueue: Queue<EventRow>;
  /** The built, minified latest.js. */
  trackerScript: string;
  /** The OpenAPI document as JSON text. */
  apiDocument(): string;
  reports: ReportStore;
  /** The API-requests series: what POST /api/ingest stores and the API reports and alert checks read. */
  apiRequests: ApiRequestStore;
  /** Ingested API request rows on their way to their series. */
  apiRequestQueue: Queue<ApiRequestRow>;
  /** False on a deployment whose event store keeps no API requests (Timestream, frozen): ingest and API reports answer 501. */
  apiRequestsAvailable: boolean;
  /** Import jobs, their progress, the daily limit and the per-site lock. */
  importJobs: ImportJobs;
  /** Import chunks on their way to the import worker. */
  importQueue: Queue<ImportChunkMessage>;
  /** Import credentials and Search Console refresh tokens at rest. */
  secrets: SecretBox;
  /** Google's OAuth and Search Console APIs (issue 41). */
  google: GoogleSearchClient;
  /** Search Console figures in the event store; null on Timestream (frozen): its routes answer 501. */
  searchStats: SearchStatsStore | null;
  /** The Simple Analytics export (credential test; the worker streams chunks through it). */
  importSource: ImportSourceClient;
  /** Crawler hits read from Cloudflare zones (issue 41), in the event store's own table. */
  crawlerHits: CrawlerHitStore;
  /** Removes a site's rows from every series of the event store (issue 42); null on Timestream (frozen): erasure answers 501. */
  siteData: SiteDataStore | null;
  /** The owner's export (issue 42): raw rows a page at a time; Timestream answers 501. */
  rowExport: RowExportStore;
  /** The Cloudflare API crawler links and syncs read. */
  cloudflare: CloudflareClient;
  /** Alert mail (and test sends): SES on AWS, SMTP or the outbox locally. */
  mailer: Mailer;
  /** Where an owner sees a site's alerts in the dashboard (`{hostname}` filled in), when the public address is known. */
  alertsUrl: ((hostname: string) => string) | null;
  /** Sites' icons (functions/domain/site-icon.ts). */
  icons: IconStore;
  /** Timers of work a request leaves running (the live stream's updates): Node's; tests record or drive them. */
  timers: Timers;
  /** The live stream's cadence, when not LIVE_CADENCE (tests make it faster). */
  liveCadence?: LiveCadence | undefined;
  /** Rows waiting for their site's running check (the collector's steps); absent on Lambda. */
  heldRows?: HeldRows | undefined;
}

export type { CollectorState, KeyState, SiteCaches };
export type { VerifyState } from './instance-state.ts';

export interface Services extends Adapters, SiteCaches, KeyState, CollectorState, SiteCheckState {
  /**
   * Collector drops by hostname as sent, for GET …/setup. Null where the collector runs in
   * other instances than the setup route (AWS: one Lambda per route group), so setup never
   * shows an empty list that only means "not here".
   */
  recentDrops: DropCounts | null;
}

export interface InstanceOptions {
  /** The collector and the product API share this process (the local node). */
  collectorInProcess?: boolean;
}

/** Every adapter and every cache: one process serving all route groups (the local node). */
export function withInstanceState(adapters: Adapters, { collectorInProcess = false }: InstanceOptions = {}): Services {
  const recentDrops = collectorInProcess ? new DropCounts(10_000, nowOf(adapters.clock), 4 * MiB) : null;
  return {
    ...adapters,
    ...siteCaches(adapters.clock),
    ...keyState(adapters.clock),
    ...collectorState(adapters.clock, recentDrops),
    ...checkState(adapters.clock),
    recentDrops,
  };
}
