/**
 * The HTTP API: one function per route group of functions/http/routes.ts and
 * one API Gateway route per table entry, so the stack and the local server
 * cannot drift. `OPTIONS /{proxy+}` and `$default` go to the `meta` function,
 * which answers preflights and 404 `not found`. No CORS configuration on the
 * HTTP API: the handlers answer OPTIONS themselves.
 *
 * The collector's routes stay on the HTTP API too, so the product API and the
 * collector share one origin exactly as on the local server (DESIGN.md §3),
 * and its function also gets its own Lambda Function URL (DESIGN.md §1):
 * sites embed that URL, which skips API Gateway's per-request price and
 * latency; the group handler dispatches Function URL events by path.
 *
 * Caching: public report reads answer `Cache-Control: public, max-age=60`
 * (the reports handler sets it; owners get no-store). An HTTP API does not
 * cache, so nothing is configured here; a CDN placed in front honours the header.
 */
import { gzipSync } from 'node:zlib';
import { Duration, Fn } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { RouteDef, RouteGroup } from '#http/routes.ts';
import { SITE_FIELDS } from '#adapters/dynamodb/registry-items.ts';
import { alarmOnAny } from './alarms.ts';
import { metricNamespace } from './clickhouse.ts';
import { CRAWLER_TOKEN_CONTEXT_KEYS, grantUnderCredentialContext } from './imports.ts';
import { googleEnvironment, grantGoogleClientSecret, grantUnderSearchConsoleContext } from './search-console.ts';

export const DEFAULT_CLOUDFLARE_API_URL = 'https://api.cloudflare.com/client/v4';
import { parsePublicUrls } from '#platform/config.ts';
import { NodeFunction } from './node-function.ts';
import { KEY_ATTRIBUTES, KEY_LOOKUP, KEY_LOOKUP_AND_TOUCH, KEY_PATTERNS, grantTableRules, type TableRule } from './table-access.ts';
import type { EventStoreResource } from './event-store.ts';
import { grantSendMail, mailEnvironment, type MailSettings } from './mail.ts';

/** What each group's function may reach, and how long it may run. A new group fails type checking until it is listed here. */
export interface GroupAccess {
  /** The registry items it may touch and how (lib/table-access.ts); none when empty. */
  table: readonly TableRule[];
  /** May send rows to the event queue (EVENT_QUEUE_URL). */
  eventQueue: boolean;
  /** The event store: the event writer alone writes it, so HTTP groups read at most (with the reader's credentials). */
  eventStore: 'none' | 'read' | 'read-write';
  /** May send chunk messages to the import queue (IMPORT_QUEUE_URL). */
  importQueue: boolean;
  /**
   * The import credential key (IMPORT_KMS_KEY_ID): `seal` is kms:GenerateDataKey only, a
   * fresh data key per sealed API key, under a credential's encryption context (site and job).
   * Opening (kms:Decrypt) is the import worker's alone. `search-console`: GenerateDataKey and
   * Decrypt only under a Search Console token's context (lib/search-console.ts).
   */
  importKey: 'none' | 'seal' | 'search-console';
  /** Seals and opens crawler links' Cloudflare tokens (issue 41) with the same key, only under their context (lib/imports.ts). */
  crawlerTokens?: boolean;
  /** Calls the Cloudflare API (CLOUDFLARE_API_URL). */
  cloudflare?: boolean;
  /** Gets the built latest.js inlined at bundling time. */
  tracker: boolean;
  /** Gets the OpenAPI document inlined at bundling time. */
  apiDocument: boolean;
  /** Also served on the function's own Lambda Function URL (auth NONE, collector CORS). */
  functionUrl: boolean;
  /** Runs site verification, so it needs PUBLIC_URL: where browsers load latest.js. */
  verifiesSites: boolean;
  /** Authenticates callers (ID tokens, management keys), so it needs the issuer's settings. */
  callers: boolean;
  /** Reads, writes and deletes site icons in the icon bucket (ICON_BUCKET). */
  icons: boolean;
  /** Function timeout; API Gateway gives up on an HTTP API integration after 30 s. */
  timeoutSeconds: number;
  /** Takes API requests (POST /api/ingest): told whether the event store keeps them (API_REQUESTS=off on Timestream). */
  ingestsApiRequests?: boolean;
  /** Its event store table is ClickHouse's alone (Search Console): no event store access on Timestream. */
  clickhouseOnly?: boolean;
  /** Validates sites' retention_months: told the operator's maximum (RETENTION_MAX_MONTHS). */
  retentionSettings?: boolean;
  /** Sends mail (alert test sends): MAIL_FROM and ses:SendEmail on the configured identity (lib/mail.ts). */
  mail?: boolean;
  /**
   * Streams its answers (the live stream): its routes are served only on its own Function URL in
   * RESPONSE_STREAM mode (functions/aws/streaming.ts), not on the HTTP API, which buffers every
   * answer. The stack adds that URL (Api.addStreamingUrl) once it knows the dashboard's origin,
   * the one origin its CORS lets in.
   */
  streaming?: boolean;
  /** The most rows one export answers (EXPORT_MAX_ROWS): Lambda streams at most 200 MB per answer. */
  exportMaxRows?: number;
}

const NOTHING: GroupAccess = {
  table: [],
  eventQueue: false,
  eventStore: 'none',
  importQueue: false,
  importKey: 'none',
  tracker: false,
  apiDocument: false,
  functionUrl: false,
  verifiesSites: false,
  callers: false,
  icons: false,
  timeoutSeconds: 10,
};

const { site, account, managementKey, salts, importsBy, sitesOf, managementKeysOf, siteApiKeyHash, unsubscribeSecret, liveTicket, liveSlots, shareSlug, shareSecret, oauthState } = KEY_PATTERNS;

/** Share links (issue 40, part 5): a link by its slug's hash, and the grants' secret (made by the first to need it). */
const SHARE_LOOKUP: readonly TableRule[] = [
  { keys: [shareSlug], actions: ['Query'], index: true },
  { keys: [shareSecret], actions: ['GetItem', 'PutItem'] },
];

/** A site API key's use: last_used_at on its item under the site's partition, nothing else of it. */
const SITE_KEY_TOUCH = [...KEY_ATTRIBUTES, 'last_used_at'] as const;

/**
 * What the collector may read of an item under a site (its site fields, as getSite projects them)
 * and write (last_seen_at, and automatic verification's verified_at and last_check): import jobs,
 * the import lock and sealed credentials share the site's partition, but none of their attributes.
 */
export const COLLECTOR_SITE_READ = [...KEY_ATTRIBUTES, ...SITE_FIELDS] as const;
export const COLLECTOR_SITE_WRITE = [...KEY_ATTRIBUTES, 'last_seen_at', 'verified_at', 'last_check'] as const;

export const GROUP_ACCESS: Readonly<Record<RouteGroup, GroupAccess>> = {
  // Liveness, the API description, preflights and 404s: no storage at all.
  meta: { ...NOTHING, apiDocument: true },
  // Site count and key counters on the account item; creates, lists and revokes management keys.
  account: {
    ...NOTHING,
    table: [
      { keys: [managementKey], actions: ['GetItem', 'PutItem', 'UpdateItem'] },
      { keys: [account], actions: ['GetItem', 'UpdateItem'] },
      { keys: [managementKeysOf], actions: ['Query'], index: true },
    ],
    callers: true,
  },
  // A site delete removes its import jobs, lock, sealed credentials, goals and e-mail reports with the partition: table only.
  sites: {
    ...NOTHING,
    table: [
      { keys: [site], actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem'] },
      // The site count on the account item; a deleted site leaves the account's workspace digest.
      { keys: [account], actions: ['GetItem', 'UpdateItem'] },
      { keys: [sitesOf], actions: ['Query'], index: true },
      KEY_LOOKUP_AND_TOUCH,
      // Share links are items under the site (created, listed, revoked, guesses counted there).
      ...SHARE_LOOKUP,
    ],
    verifiesSites: true,
    retentionSettings: true,
    // Verification reads a proxied /latest.js and compares it with this build.
    tracker: true,
    callers: true,
    icons: true,
  },
  // Reads sites, keys, a goal filter's goal and share links, and queries the event store; changes nothing but the
  // share grants' secret when it is first needed.
  // So a management key's last_used_at cannot be written from here: the handler must treat that
  // write as best effort (functions/http/auth.ts), or the first report read with a key fails.
  reports: {
    ...NOTHING,
    table: [{ keys: [site], actions: ['GetItem'] }, { keys: [sitesOf], actions: ['Query'], index: true }, KEY_LOOKUP, ...SHARE_LOOKUP],
    eventStore: 'read',
    callers: true,
  },
  // The public function: reads sites and sets last_seen_at and automatic verification on them
  // (never creates or replaces one), creates and reads the daily salt; queues rows. No management
  // keys, no accounts, no KMS, and of a site's partition only the site's own attributes.
  collector: {
    ...NOTHING,
    table: [
      { keys: [site], actions: ['GetItem'], attributes: COLLECTOR_SITE_READ },
      { keys: [site], actions: ['UpdateItem'], attributes: COLLECTOR_SITE_WRITE },
      { keys: [salts], actions: ['GetItem', 'PutItem'] },
    ],
    eventQueue: true,
    tracker: true,
    functionUrl: true,
    verifiesSites: true,
  },
  // Alert rules and their state changes under the site; the test send mails. No event store.
  alerts: {
    ...NOTHING,
    table: [{ keys: [site], actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'] }, { keys: [sitesOf], actions: ['Query'], index: true }, KEY_LOOKUP_AND_TOUCH],
    callers: true,
    mail: true,
  },
  // Goals and funnels under the site; their stats read the event store.
  goals: {
    ...NOTHING,
    table: [{ keys: [site], actions: ['GetItem', 'PutItem', 'DeleteItem', 'Query'] }, { keys: [sitesOf], actions: ['Query'], index: true }, KEY_LOOKUP_AND_TOUCH],
    eventStore: 'read',
    callers: true,
  },
  // E-mail reports under the site, the account's defaults and workspace digest, the unsubscribe links' secret (made on
  // first use); digests read the event store (previews, test sends) and test sends mail. Public origin: PUBLIC_URL (links).
  digests: {
    ...NOTHING,
    table: [
      { keys: [site], actions: ['GetItem', 'PutItem', 'DeleteItem', 'Query'] },
      { keys: [account], actions: ['GetItem', 'PutItem'] },
      { keys: [unsubscribeSecret], actions: ['GetItem', 'PutItem'] },
      { keys: [sitesOf], actions: ['Query'], index: true },
      KEY_LOOKUP_AND_TOUCH,
    ],
    eventStore: 'read',
    callers: true,
    mail: true,
    timeoutSeconds: 28,
  },
  // POST /api/ingest: reads sites (their fields only) and the two kinds of key, notes a key's use, queues rows. No
  // issuer (ID tokens are no ingest credential), no event store, and of a site's partition only what it reads.
  ingest: {
    ...NOTHING,
    table: [
      { keys: [site], actions: ['GetItem'], attributes: COLLECTOR_SITE_READ },
      { keys: [site], actions: ['UpdateItem'], attributes: SITE_KEY_TOUCH },
      { keys: [siteApiKeyHash], actions: ['Query'], index: true },
      KEY_LOOKUP_AND_TOUCH,
    ],
    eventQueue: true,
    ingestsApiRequests: true,
  },
  // The live stream: reads sites (a ticket names its site) and the event store; puts tickets and takes them by a
  // conditional delete; holds, renews and frees the account's stream slots. No management keys (no credential here).
  // Its streams run up to 14.5 minutes, under Lambda's 15.
  live: {
    ...NOTHING,
    table: [
      { keys: [site], actions: ['GetItem'] },
      { keys: [liveTicket], actions: ['PutItem', 'DeleteItem'] },
      { keys: [liveSlots], actions: ['PutItem', 'UpdateItem', 'DeleteItem', 'Query'] },
    ],
    eventStore: 'read',
    callers: true,
    streaming: true,
    timeoutSeconds: 900,
  },
  // Search Console (issue 41): the link (with its sealed refresh token) under the site, consent states by their hash
  // (put, then taken by a conditional delete). Reads the event store's figures; Google is reached over the internet.
  search: {
    ...NOTHING,
    table: [
      { keys: [site], actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
      { keys: [oauthState], actions: ['PutItem', 'DeleteItem'] },
      { keys: [sitesOf], actions: ['Query'], index: true },
      KEY_LOOKUP_AND_TOUCH,
    ],
    // The sync writes the Search Console table; tokens are sealed and opened under their own KMS context.
    eventStore: 'read-write',
    clickhouseOnly: true,
    importKey: 'search-console',
    callers: true,
    timeoutSeconds: 28,
  },
  // Crawler links (issue 41): the link and its sealed token under the site; link seals the token, sync now opens it, reads
  // Cloudflare and writes the hits (the event store's crawler table); the stats read the event store. 28 s: a sync reads up
  // to 72 hours of the zone under API Gateway's 30 s.
  crawlers: {
    ...NOTHING,
    table: [{ keys: [site], actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] }, { keys: [sitesOf], actions: ['Query'], index: true }, KEY_LOOKUP_AND_TOUCH],
    eventStore: 'read-write',
    crawlerTokens: true,
    cloudflare: true,
    callers: true,
    timeoutSeconds: 28,
  },
  // Erasure (issue 42): reads the site (and the caller's other registrations of it) and removes its rows from the event
  // store (a mutation per table, run synchronously). ID token only: no management keys to look up. 28 s: the mutations
  // of a long range wait for their parts to be rewritten, under API Gateway's 30 s.
  data: {
    ...NOTHING,
    table: [{ keys: [site], actions: ['GetItem'] }, { keys: [sitesOf], actions: ['Query'], index: true }],
    eventStore: 'read-write',
    clickhouseOnly: true,
    callers: true,
    timeoutSeconds: 28,
  },
  // The owner's export (issue 42): reads sites and keys (a read key works), then the event store a page at a time.
  // It streams (a file of any size) through its own Function URL, RESPONSE_STREAM, up to Lambda's 15 minutes.
  export: {
    ...NOTHING,
    table: [{ keys: [site], actions: ['GetItem'] }, { keys: [sitesOf], actions: ['Query'], index: true }, KEY_LOOKUP],
    eventStore: 'read',
    callers: true,
    streaming: true,
    // Rows of a few hundred bytes: 500,000 is about 150 MB of CSV, under Lambda's 200 MB streamed answer.
    exportMaxRows: 500_000,
    timeoutSeconds: 900,
  },
  // Jobs, locks and sealed credentials under the site, the owner's daily slots; seals API keys
  // (create, retry with a new key) and queues chunks. It never opens a sealed key nor touches the
  // event store: the import worker (lib/imports.ts) does. 28 s: create waits up to 20 s for the
  // source's credential test, between registry writes, a KMS call and the queue send, under API
  // Gateway's 30 s.
  imports: {
    ...NOTHING,
    table: [
      { keys: [site], actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'] },
      { keys: [importsBy], actions: ['PutItem', 'DeleteItem', 'Query'] },
      KEY_LOOKUP_AND_TOUCH,
    ],
    importQueue: true,
    importKey: 'seal',
    callers: true,
    timeoutSeconds: 28,
  },
};

/**
 * The collector's Function URL CORS (DESIGN.md §1): any origin, the beacon
 * methods and Content-Type. With CORS set, Lambda answers the preflights on
 * the URL itself (the handler's 204 preflight serves the HTTP API and the
 * local server) and adds these headers to cross-origin responses; the
 * handler sends the same values. Check on the first deploy that responses
 * carry one `Access-Control-Allow-Origin`; if Lambda doubles it, remove
 * `cors` here and let the handler answer everything, as it does elsewhere.
 * The preflight lifetime matches the handler's (one day).
 */
export const COLLECTOR_URL_CORS: lambda.FunctionUrlCorsOptions = {
  allowedOrigins: ['*'],
  allowedMethods: [lambda.HttpMethod.GET, lambda.HttpMethod.POST, lambda.HttpMethod.HEAD],
  allowedHeaders: ['content-type'],
  maxAge: Duration.days(1),
};

export interface ApiProps {
  routes: readonly RouteDef[];
  table: dynamodb.ITable;
  eventQueue: sqs.IQueue;
  eventStore: EventStoreResource;
  /** The SES sender of alert mail (lib/mail.ts); none: nothing may send. */
  mail?: MailSettings | null;
  /** RETENTION_MAX_MONTHS for the groups that validate retention_months (context `retentionMaxMonths`). */
  retentionMaxMonths?: number;
  /** The chunk queue of historical imports. */
  importQueue: sqs.IQueue;
  /** The KMS key that wraps import credentials. */
  importKey: kms.IKey;
  /** Sites' icons. */
  iconBucket: s3.IBucket;
  /** The Cloudflare API's base URL (context `cloudflareApiUrl`); its public address by default. */
  cloudflareApiUrl?: string;
  /** AUTH_ISSUER, AUTH_AUDIENCE, AUTH_JWKS_URI. */
  authEnvironment: Readonly<Record<string, string>>;
  /** The built, minified latest.js (functions/tracker/build.ts). */
  trackerScript: string;
  /** The OpenAPI document as JSON text (functions/http/openapi.ts). */
  apiDocument: string;
  /** Reserved concurrency per route group (also each one's cap); none by default. */
  reservedConcurrency?: Partial<Record<RouteGroup, number>>;
  /** The `$default` stage's limits for every route, requests per second. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Custom domains (origins) that serve latest.js, e.g. a CDN in front of the collector (context `publicUrls`). */
  publicUrls: readonly string[];
}

/** Context `publicUrls`: the operator's custom origins for latest.js, comma-separated (or a list). */
export function publicUrlsFromContext(scope: Construct): string[] {
  const value: unknown = scope.node.tryGetContext('publicUrls');
  if (value === undefined || value === '') return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return parsePublicUrls(value.join(','));
  if (typeof value !== 'string') throw new Error('context publicUrls must be a comma-separated string or a list of URLs');
  return parsePublicUrls(value);
}

const API_METHODS: Readonly<Record<RouteDef['method'], HttpMethod>> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PATCH: HttpMethod.PATCH,
  PUT: HttpMethod.PUT,
  DELETE: HttpMethod.DELETE,
  ANY: HttpMethod.ANY,
};

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The texts a group's bundle gets inlined (read through functions/platform/config.ts lambdaEnv). */
export function groupDefines(access: GroupAccess, texts: { trackerScript: string; apiDocument: string }): Record<string, string> {
  return {
    ...(access.tracker ? { 'process.env.TT_TRACKER_JS': JSON.stringify(texts.trackerScript) } : {}),
    // Gzipped: the document is data, and its JSON alone would be most of the group's bundle.
    ...(access.apiDocument ? { 'process.env.TT_OPENAPI_GZ': JSON.stringify(gzipSync(texts.apiDocument, { level: 9 }).toString('base64')) } : {}),
  };
}

/** HTTP functions start on a request someone waits for: no source maps (measured, docs/decisions.md "Composition roots and Lambda bundles"). */
export const HTTP_SOURCE_MAPS = false;

/** The collector's log lines of beacons answered 503 (collector drops `queue_full`, `enqueue_failed`; each failed queue send). */
export const REFUSED_BEACON_PATTERN = '?"queue_full" ?"enqueue_failed" ?"event queue refused"';

/**
 * A public URL's failures, each an alarm on its first occurrence: every 5xx it answers
 * (Lambda's Url5xxCount) and, named apart, the beacons refused with 503 because they could not
 * be queued (counted from the function's log, as Lambda has no metric of them). Both are
 * collected data lost, which the visitor's browser does not retry.
 */
function urlErrorAlarms(scope: Construct, group: RouteGroup, fn: NodeFunction): void {
  const url5xx = new cloudwatch.Metric({
    namespace: 'AWS/Lambda',
    metricName: 'Url5xxCount',
    dimensionsMap: { FunctionName: fn.functionName },
    statistic: 'Sum',
    period: Duration.minutes(5),
  });
  alarmOnAny(scope, `${pascal(group)}Url5xxAlarm`, url5xx, `tinytrack: the ${group} URL answers 5xx: beacons are lost; read its logs`);
  const refused = new cloudwatch.Metric({ namespace: metricNamespace(scope), metricName: 'RefusedBeacons', statistic: 'Sum', period: Duration.minutes(5) });
  new logs.MetricFilter(scope, `${pascal(group)}RefusedBeacons`, {
    logGroup: fn.logGroup,
    filterPattern: logs.FilterPattern.literal(REFUSED_BEACON_PATTERN),
    metricNamespace: refused.namespace,
    metricName: refused.metricName,
    metricValue: '1',
  });
  alarmOnAny(
    scope,
    `${pascal(group)}RefusedAlarm`,
    refused,
    `tinytrack: the ${group} answered 503 (queue_full or enqueue_failed): beacons were not taken; check the event queue and the account's quotas`,
  );
}

/** A group's Lambda entry: its composition root, which builds only what the group's routes use. */
export const httpEntry = (group: RouteGroup) => `functions/aws/http/${group}.ts`;

export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly functions: ReadonlyMap<RouteGroup, NodeFunction>;
  /** Function URLs of the groups with `functionUrl` (the collector). */
  readonly functionUrls: ReadonlyMap<RouteGroup, lambda.FunctionUrl>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    // `meta` always exists: it serves `$default` and the preflights.
    const groups = [...new Set<RouteGroup>(['meta', ...props.routes.map((r) => r.group)])];
    const functions = new Map<RouteGroup, NodeFunction>();
    const integrations = new Map<RouteGroup, HttpLambdaIntegration>();
    const functionUrls = new Map<RouteGroup, lambda.FunctionUrl>();

    for (const group of groups) {
      const access = GROUP_ACCESS[group] as GroupAccess | undefined;
      if (!access) throw new Error(`lib/api.ts has no access settings for route group "${group}"`);
      const environment: Record<string, string> = { TABLE_NAME: props.table.tableName, ...(access.callers ? props.authEnvironment : {}) };
      const eventStore = access.clickhouseOnly && !props.eventStore.keepsApiRequests ? 'none' : access.eventStore;
      if (access.eventQueue) environment.EVENT_QUEUE_URL = props.eventQueue.queueUrl;
      if (eventStore !== 'none') Object.assign(environment, props.eventStore.environment(eventStore));
      if (access.importQueue) environment.IMPORT_QUEUE_URL = props.importQueue.queueUrl;
      if (access.importKey !== 'none' || access.crawlerTokens) environment.IMPORT_KMS_KEY_ID = props.importKey.keyArn;
      if (access.importKey === 'search-console') Object.assign(environment, googleEnvironment(this));
      if (access.cloudflare) environment.CLOUDFLARE_API_URL = props.cloudflareApiUrl ?? DEFAULT_CLOUDFLARE_API_URL;
      if (access.icons) environment.ICON_BUCKET = props.iconBucket.bucketName;
      if (access.ingestsApiRequests && !props.eventStore.keepsApiRequests) environment.API_REQUESTS = 'off';
      if (access.mail) Object.assign(environment, mailEnvironment(props.mail ?? null));
      if (access.retentionSettings && props.retentionMaxMonths !== undefined) environment.RETENTION_MAX_MONTHS = String(props.retentionMaxMonths);
      if (access.exportMaxRows !== undefined) environment.EXPORT_MAX_ROWS = String(access.exportMaxRows);
      const fn = new NodeFunction(this, `${pascal(group)}Function`, {
        entry: httpEntry(group),
        description: `tinytrack HTTP routes: ${group}`,
        environment,
        timeout: Duration.seconds(access.timeoutSeconds),
        // Lambda has no esbuild to build the tracker at start, and an env var would be too small for either text.
        define: groupDefines(access, props),
        reservedConcurrency: props.reservedConcurrency?.[group],
        sourceMaps: HTTP_SOURCE_MAPS,
      });
      grantTableRules(props.table, fn, access.table);
      if (access.mail) grantSendMail(fn, props.mail ?? null, this);
      if (access.eventQueue) props.eventQueue.grantSendMessages(fn);
      if (eventStore !== 'none') props.eventStore.grant(fn, eventStore);
      if (access.importQueue) props.importQueue.grantSendMessages(fn);
      if (access.importKey === 'seal') grantUnderCredentialContext(props.importKey, fn, 'kms:GenerateDataKey');
      if (access.importKey === 'search-console') {
        grantUnderSearchConsoleContext(props.importKey, fn, ['kms:GenerateDataKey', 'kms:Decrypt']);
        grantGoogleClientSecret(fn, fn);
      }
      if (access.crawlerTokens) for (const action of ['kms:GenerateDataKey', 'kms:Decrypt'] as const) grantUnderCredentialContext(props.importKey, fn, action, CRAWLER_TOKEN_CONTEXT_KEYS);
      if (access.icons) {
        props.iconBucket.grantRead(fn, 'icons/*');
        props.iconBucket.grantPut(fn, 'icons/*');
        props.iconBucket.grantDelete(fn, 'icons/*');
      }
      if (access.functionUrl) {
        functionUrls.set(group, fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE, cors: COLLECTOR_URL_CORS }));
        // API Gateway's throttling does not cover the URL: concurrency is its only cap, and a throttled beacon is lost.
        alarmOnAny(
          this,
          `${pascal(group)}ThrottlesAlarm`,
          fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
          `tinytrack: the ${group} function is throttled (its reserved concurrency or the account's quota); requests on its public URL are refused`,
        );
        urlErrorAlarms(this, group, fn);
      }
      functions.set(group, fn);
      if (!access.streaming) integrations.set(group, new HttpLambdaIntegration(`${pascal(group)}Integration`, fn));
    }
    this.functions = functions;
    this.functionUrls = functionUrls;

    const meta = integrations.get('meta') as HttpLambdaIntegration;
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'tinytrack product API and collector',
      defaultIntegration: meta,
      // Made below with throttling (the construct's own default stage takes none); same id, same stage.
      createDefaultStage: false,
    });
    // Default route settings: every route is held to these, far below the account's 10,000/5,000.
    this.httpApi.addStage('DefaultStage', { stageName: '$default', autoDeploy: true, throttle: props.throttle });
    for (const route of props.routes) {
      if (GROUP_ACCESS[route.group].streaming) continue;
      this.httpApi.addRoutes({
        path: route.path,
        methods: [API_METHODS[route.method]],
        integration: integrations.get(route.group) as HttpLambdaIntegration,
      });
    }
    this.httpApi.addRoutes({ path: '/{proxy+}', methods: [HttpMethod.OPTIONS], integration: meta });
    // Every route's 5xx: an owner's request failed, or a beacon sent to the API was not taken.
    alarmOnAny(
      this,
      'ServerErrorsAlarm',
      this.httpApi.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      'tinytrack: the HTTP API answers 5xx (requests failed; beacons sent through the API were not taken); read the functions’ "request failed" lines',
    );

    // PUBLIC_URL: the API and the Function URLs serve latest.js, and so do the operator's domains. A
    // function's own Function URL in its own environment would be a CloudFormation cycle: it counts
    // the domain a request arrived on instead (ApiRequest.servedOrigin).
    for (const [group, fn] of functions) {
      if (!GROUP_ACCESS[group].verifiesSites) continue;
      const urls = [...functionUrls].filter(([owner]) => owner !== group).map(([, url]) => url.url);
      fn.addEnvironment('PUBLIC_URL', Fn.join(',', [this.httpApi.apiEndpoint, ...urls, ...props.publicUrls]));
    }
  }

  /**
   * The Function URL of a `streaming` group, in RESPONSE_STREAM mode, authenticated by its handler
   * (ID tokens, tickets). CORS lets in `origins` only (the dashboard's; none without one): the
   * dashboard's CloudFront cannot route to it, as the URL's function reads the sign-in client the
   * distribution's own address configures (a cycle), so the page calls the URL directly.
   */
  addStreamingUrl(group: RouteGroup, origins: readonly string[]): lambda.FunctionUrl {
    const fn = this.functions.get(group);
    if (!fn || !GROUP_ACCESS[group].streaming) throw new Error(`route group "${group}" does not stream (lib/api.ts GROUP_ACCESS)`);
    return fn.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
      ...(origins.length
        ? { cors: { allowedOrigins: [...origins], allowedMethods: [lambda.HttpMethod.GET, lambda.HttpMethod.POST], allowedHeaders: ['authorization'], maxAge: Duration.days(1) } }
        : {}),
    });
  }
}
