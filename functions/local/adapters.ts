/**
 * Adapters for one machine: DynamoDB code over an in-process dynalite whose
 * files live in DATA_DIR (owner-only), the local ID-token issuer, the real page checker.
 */
import { HttpCloudflareClient } from '#adapters/cloudflare/cloudflare-client.ts';
import type { CrawlerHitStore } from '#ports/crawler-hits.ts';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Server } from 'node:http';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { Config } from '#platform/config.ts';
import { importSourceFor } from '#platform/import-source.ts';
import { localMailer } from '#platform/mailer.ts';
import { alertsUrlOf } from '#domain/alerts/alert-mail.ts';
import { pageCheckerFor } from '#platform/page-checker.ts';
import { log } from '#platform/log.ts';
import type { Adapters } from '#platform/services.ts';
import { systemClock, type Clock } from '#ports/clock.ts';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { ensureTable } from '#adapters/dynamodb/table.ts';
import { JwtTokenVerifier } from '#adapters/jwt/jwt-token-verifier.ts';
import { OWNER_DIR, ownDataDir } from '#local/data-dir.ts';
import { notifySiteChanged, openStoreDoor, readStoreAddress, storeClient, type SiteChangedListener } from '#local/store-socket.ts';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, LOCAL_JWKS_URI, issuerJwks, loadIssuerKey } from '#local/local-issuer.ts';
import type { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { openLocalEvents, type LocalEvents } from './events.ts';
import { currentRegistrations } from '#domain/registration.ts';
import { MemoryQueue } from '#adapters/memory-queue/memory-queue.ts';
import { createApiRequestWriter, createEventWriter } from '#workers/event-writer.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import { approxBytes } from '#adapters/memory-queue/approx-bytes.ts';
import { buildTracker } from '#tracker/build.ts';
import { buildOpenApi } from '#http/openapi.ts';
import { eventRowBytes, type EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ImportChunkMessage } from '#ports/import-jobs.ts';
import { DynamoImportJobs } from '#adapters/dynamodb/import-jobs.ts';
import { FetchGoogleSearchClient } from '#adapters/google/google-search-client.ts';
import { LocalSecretBox } from '#adapters/local-secret-box/local-secret-box.ts';
import { createImportWorker, type ImportWorker } from '#workers/import-worker.ts';
import { systemTimers, type Timers } from '#workers/rotate-salts.ts';
import { IconFiles } from '#adapters/icon-files/icon-files.ts';
import { ReceiptJournal } from '#adapters/receipt-journal/receipt-journal.ts';
import { eventRowCodec } from '#adapters/receipt-journal/event-row-codec.ts';
import { HeldRowsJournal } from '#adapters/receipt-journal/held-rows-journal.ts';
import type { IngestMetrics } from '#ports/ingest-metrics.ts';

export interface LocalStore {
  client: DynamoDBClient;
  /** After a change made here: the server running on this store (another process) re-reads the site; nothing when the store is our own. */
  siteChanged(hostname: string): Promise<void>;
  /** Our own store: `listener` runs for each change another process announces (siteChanged). */
  onSiteChanged(listener: SiteChangedListener): void;
  close(): Promise<void>;
}

/** Starts dynalite over DATA_DIR behind its guarded unix socket (functions/local/store-socket.ts), so `npm run admin` can reach the running store and nobody else can. */
export async function startLocalStore(config: Readonly<Config>): Promise<LocalStore> {
  const dataDir = ownDataDir(config.dataDir);
  const path = join(dataDir, 'dynamodb');
  mkdirSync(path, { recursive: true, mode: OWNER_DIR });
  const server: Server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const door = await openStoreDoor(server, dataDir);
  const client = storeClient(door.address);
  const close = async () => {
    client.destroy();
    door.remove();
    await new Promise<void>((ok) => server.close(() => ok()));
  };
  try {
    await ensureTable(client, config.tableName);
  } catch (e) {
    await close();
    throw e;
  }
  return { client, close, siteChanged: async () => {}, onSiteChanged: door.onSiteChanged };
}

/** The store of a server running on DATA_DIR (its door answers), or null when none runs there. */
export async function openRunningStore(config: Readonly<Config>): Promise<LocalStore | null> {
  const address = readStoreAddress(resolve(config.dataDir));
  if (!address) return null;
  const client = storeClient(address);
  try {
    await ensureTable(client, config.tableName);
    return {
      client,
      close: async () => client.destroy(),
      siteChanged: (hostname) => notifySiteChanged(address, hostname),
      onSiteChanged: () => {
        throw new Error('another process owns this store');
      },
    };
  } catch {
    client.destroy();
    return null;
  }
}

/** The store of a server already running on DATA_DIR, or a private one when none runs. */
export async function openLocalStore(config: Readonly<Config>): Promise<LocalStore> {
  return (await openRunningStore(config)) ?? startLocalStore(config);
}

/** Most collected rows per event-store write: what arrives in one EVENT_BATCH_WAIT_MS at the writer's budget of 100,000 rows/s (DESIGN.md §6). */
export const EVENT_BATCH_SIZE = 50_000;
/** Longest a collected row waits for its batch to fill (DESIGN.md §3: reports show it within 2 s). */
export const EVENT_BATCH_WAIT_MS = 500;
/** Batches the writer works on at once: one stages (appender, event loop) while the other is inserted (DuckDB's threads). */
export const EVENT_WRITES_IN_FLIGHT = 2;

/** How often dead letters are replayed once the store has gone that long without a failed write. */
export const DEAD_LETTER_REPLAY_MS = 30_000;

/**
 * The in-process collector queue with its writer, as `npm start` runs it (also
 * driven by `npm run bench`); with a journal, receipt is durable (a row is on
 * disk before its beacon is answered).
 */
export function createEventQueue(events: EventStore, dataDir: string, journal?: ReceiptJournal<EventRow>, durable = true): MemoryQueue<EventRow> {
  return new MemoryQueue<EventRow>({
    log,
    journal,
    journalSends: durable,
    consumer: createEventWriter(events),
    // Each write has a fixed cost (one statement with its look-ups, one commit): under load the
    // writer takes few large batches; a quiet site's beacon still shows within about half a second.
    batchSize: EVENT_BATCH_SIZE,
    maxWaitMs: EVENT_BATCH_WAIT_MS,
    concurrency: EVENT_WRITES_IN_FLIGHT,
    deadLetterPath: join(dataDir, 'dead-letter', 'events.jsonl'),
    sizeOf: eventRowBytes,
  });
}

/** Most ingested rows per write: ten full batches of POST /api/ingest at most. */
export const API_REQUEST_BATCH_SIZE = 10_000;

/**
 * The in-process queue of POST /api/ingest, with the event writer's failure isolation into the
 * API-requests series; with a journal, a batch is on disk before it is answered 202.
 */
export function createApiRequestQueue(store: ApiRequestStore, dataDir: string, journal?: ReceiptJournal<ApiRequestRow>, durable = true): MemoryQueue<ApiRequestRow> {
  return new MemoryQueue<ApiRequestRow>({
    log,
    journal,
    journalSends: durable,
    consumer: createApiRequestWriter(store),
    batchSize: API_REQUEST_BATCH_SIZE,
    maxWaitMs: EVENT_BATCH_WAIT_MS,
    deadLetterPath: join(dataDir, 'dead-letter', 'api-requests.jsonl'),
    sizeOf: approxBytes,
  });
}

export interface LocalRuntime {
  adapters: Adapters;
  /** The registry's DynamoDB client (dynalite), for what only the local server keeps there (login links). */
  store: DynamoDBClient;
  /** Sites `npm run admin` changed behind this server's caches (LocalStore.onSiteChanged). */
  onSiteChanged(listener: SiteChangedListener): void;
  events: EventStore;
  /** The embedded DuckDB store when it is the one in use; null on ClickHouse (CLICKHOUSE_URL). */
  duckdb: DuckDbEventStore | null;
  /** One compaction pass of the S3 store (S3_EVENTS_URL); null on the other stores. */
  compactEvents: (() => Promise<number>) | null;
  eventQueue: MemoryQueue<EventRow>;
  /** Ingested API requests (POST /api/ingest). */
  apiRequestQueue: MemoryQueue<ApiRequestRow>;
  /** Import chunks, two at a time in the import worker. */
  importQueue: MemoryQueue<ImportChunkMessage>;
  importWorker: ImportWorker;
  /**
   * The collector's held rows (functions/ports/held-rows.ts) in their journal, counting the ones
   * it drops into `drops`; rows an earlier run held are decided first.
   */
  holdRows(drops: IngestMetrics): Promise<HeldRowsJournal>;
  /** Drains the queue (nothing answered 200 is lost), then closes the stores. */
  close(): Promise<void>;
}

export interface LocalRuntimeOptions {
  /** Resume imports and replay dead letters on start and on a timer (a server); off for one-shot CLI commands. Default true. */
  background?: boolean;
  /** The service clock; tests move it (salts across midnight). Default the system clock. */
  clock?: Clock;
  /** The timers of scheduled work (the salt rotation); tests fire them by hand. Default Node's. */
  timers?: Timers;
  /** The timers of live streams (Services.timers); tests record them. Default Node's. */
  streamTimers?: Timers;
}

/** Imports and Search Console on one machine: credentials sealed under a key file in DATA_DIR; chunks through an in-process queue to the worker. */
function localImports(config: Readonly<Config>, dataDir: string, store: LocalStore, { events, ledger, searchStats, reports }: LocalEvents, clock: Clock) {
  const imports = {
    // Search Console (issue 41): its refresh tokens are sealed in the same box.
    google: new FetchGoogleSearchClient(config.google),
    searchStats,
    importJobs: new DynamoImportJobs(store.client, config.tableName),
    secrets: LocalSecretBox.open(dataDir),
    importSource: importSourceFor(config, { backoff: { baseMs: config.importRetryBaseMs, maxMs: 30_000 }, parseInWorkers: true }),
  };
  const importWorker = createImportWorker({
    jobs: imports.importJobs,
    secrets: imports.secrets,
    source: imports.importSource,
    ledger,
    events,
    rollups: reports,
    clock,
    chunkRetryDelayMs: config.importRetryBaseMs * 5,
  });
  const importQueue = new MemoryQueue<ImportChunkMessage>({
    log,
    consumer: importWorker.consumer,
    // Two chunks at a time, each taken up as soon as a worker is free (as the AWS worker's batch size 1):
    // a batch of two waited for its slower chunk, idling the other half the time.
    batchSize: 1,
    concurrency: 2,
    maxAttempts: 5,
    backoff: { baseMs: 1_000, maxMs: 30_000 },
    deadLetterPath: join(dataDir, 'dead-letter', 'imports.jsonl'),
  });
  return { imports, importWorker, importQueue };
}

/** The OIDC issuer's verifier when AUTH_ISSUER is set, else the local issuer's. */
const localTokens = (config: Readonly<Config>) =>
  config.auth
    ? new JwtTokenVerifier(config.auth)
    : new JwtTokenVerifier({ issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, jwksUri: LOCAL_JWKS_URI, jwks: issuerJwks(loadIssuerKey(config.dataDir)) });

/** A clean stop: everything the queue holds is written, then it stops and its journal closes. */
async function drainToJournal<T>(queue: MemoryQueue<T>, journal: ReceiptJournal<T>): Promise<void> {
  await queue.drain();
  queue.stop();
  await journal.close();
}

/** POST /api/ingest's queue over its journal; what a crash left in the journal is queued first. */
async function localApiRequests(config: Readonly<Config>, dataDir: string, store: ApiRequestStore) {
  const { journal: apiJournal, recovered } = await ReceiptJournal.open<ApiRequestRow>(join(dataDir, 'journal', 'api-requests'), { log });
  const apiRequestQueue = createApiRequestQueue(store, dataDir, apiJournal, config.durableReceipt);
  const restored = apiRequestQueue.restore(recovered);
  if (restored > 0) log.info('journal recovered', { api_requests: restored });
  return { apiRequestQueue, apiJournal };
}

/** Crawler hits (issue 41): the event store's table, and Cloudflare at CLOUDFLARE_API_URL. */
const localCrawlers = (config: Readonly<Config>, local: { crawlerHits: CrawlerHitStore }) => ({
  crawlerHits: local.crawlerHits,
  cloudflare: new HttpCloudflareClient({ baseUrl: config.cloudflareApiUrl }),
});

/** Everything one machine needs: registry, event store, queue with its writer, tracker, identity. */
export async function startLocalRuntime(config: Readonly<Config>, { background = true, clock = systemClock, streamTimers = systemTimers }: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const dataDir = ownDataDir(config.dataDir);
  const store = await startLocalStore(config);
  const registry = new DynamoRegistry(store.client, config.tableName);
  const local = await openLocalEvents(config, dataDir, (hostnames) => currentRegistrations(registry, hostnames), store.client);
  // Opened even when receipt is not durable, so rows an earlier durable run left are still written.
  const { journal, recovered } = await ReceiptJournal.open<EventRow>(join(dataDir, 'journal', 'events'), { codec: eventRowCodec, log });
  const eventQueue = createEventQueue(local.events, dataDir, journal, config.durableReceipt);
  // Rows a crash left in the journal go to the store before anything collected from now on.
  const restored = eventQueue.restore(recovered);
  if (restored > 0) log.info('journal recovered', { rows: restored });
  const held = await ReceiptJournal.open<EventRow>(join(dataDir, 'journal', 'held'), { codec: eventRowCodec, log });
  const { apiRequestQueue, apiJournal } = await localApiRequests(config, dataDir, local.apiRequests);
  const { imports, importWorker, importQueue } = localImports(config, dataDir, store, local, clock);
  const trackerScript = (await buildTracker()).code;
  let apiDocument: string | null = null;
  const adapters: Adapters = {
    config,
    clock,
    registry,
    tokens: localTokens(config),
    pageChecker: pageCheckerFor(config, trackerScript),
    publicOrigins: config.publicUrls ?? [],
    eventQueue,
    trackerScript,
    apiDocument: () => (apiDocument ??= JSON.stringify(buildOpenApi())),
    reports: local.reports, rowExport: local.rowExport,
    apiRequests: local.apiRequests,
    apiRequestQueue, siteData: local.siteData,
    ...localCrawlers(config, local),
    apiRequestsAvailable: config.apiRequestsAvailable, mailer: localMailer(config, dataDir),
    alertsUrl: alertsUrlOf(config.publicUrls?.[0]),
    icons: new IconFiles(dataDir),
    timers: streamTimers,
    ...imports,
    importQueue,
  };
  // Chunks queued before a stop or crash were only in memory: queue the unfinished ones again.
  if (background) {
    void importWorker.resume(importQueue).catch((e: unknown) => {
      log.error('resuming imports failed', { message: (e as Error).message });
    });
  }
  const stopReplays = (background ? [eventQueue, apiRequestQueue, importQueue] : []).map((queue) => queue.replayDeadLettersEvery(DEAD_LETTER_REPLAY_MS));
  return {
    adapters,
    store: store.client,
    onSiteChanged: store.onSiteChanged,
    events: local.events,
    duckdb: local.duckdb, compactEvents: local.compactEvents,
    eventQueue,
    apiRequestQueue,
    importQueue,
    importWorker,
    holdRows: async (drops) => {
      const heldRows = new HeldRowsJournal({
        journal: held.journal,
        queue: eventQueue,
        dropped: (row) => drops.dropped('unverified', row.site),
        failed: (e) => log.error('a held row stays journaled until the next start', { message: e.message }),
      });
      const decided = await heldRows.recover(held.recovered, registry);
      if (held.recovered.length > 0) log.info('held rows recovered', { stored: decided });
      return heldRows;
    },
    close: async () => {
      // Chunks in flight stop unrecorded; they run again after the next start (resume).
      for (const stop of stopReplays) stop();
      importQueue.stop();
      importWorker.abort();
      await importWorker.idle();
      await imports.importSource.close();
      await drainToJournal(eventQueue, journal);
      await drainToJournal(apiRequestQueue, apiJournal);
      await held.journal.close();
      await local.close();
      await store.close();
    },
  };
}
