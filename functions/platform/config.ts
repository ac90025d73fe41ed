/** Runtime configuration, parsed once from the environment into a frozen, typed object. */
// zod/mini: the same schemas, tree-shaken, so every Lambda bundle stays small.
import * as z from 'zod/mini';
import type { GoogleSettings } from '#ports/search-console.ts';

const flag = () => z._default(z.enum(['0', '1', '']), '0');

/** Where the local server keeps everything unless DATA_DIR says otherwise. */
export const DEFAULT_DATA_DIR = './.data';
const Env = z.object({
  HOST: z._default(z.string(), '127.0.0.1'),
  PORT: z._default(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(65535)), 8787),
  DATA_DIR: z._default(z.string(), DEFAULT_DATA_DIR),
  TABLE_NAME: z._default(z.string(), 'tinytrack'),
  AUTH_ISSUER: z.optional(z.url()),
  AUTH_AUDIENCE: z.optional(z.string()),
  AUTH_JWKS_URI: z.optional(z.url()),
  VERIFY_URL_TEMPLATE: z._default(z.string(), 'https://{hostname}/'),
  VERIFY_ALLOW_PRIVATE_ADDRESSES: flag(),
  PUBLIC_URL: z.optional(z.string()),
  // Proxies in front whose X-Forwarded-For entries are believed; 0: the socket address.
  TRUST_PROXY: z._default(z.coerce.number().check(z.int(), z.minimum(0)), 0),
  DURABLE_RECEIPT: z._default(z.enum(['0', '1']), '1'),
  // Memory the event store's flag index may take, MiB (past it a day's flags are decided in SQL: slower, never wrong).
  EVENT_INDEX_MB: z._default(z.coerce.number().check(z.int(), z.minimum(0)), 1024),
  // DuckDB's memory (its buffer pool of cached pages included), MiB; past it DuckDB evicts pages or spills to DATA_DIR.
  DUCKDB_MEMORY_MB: z._default(z.coerce.number().check(z.int(), z.minimum(64)), 1024),
  EXPORT_MAX_ROWS: z._default(z.coerce.number().check(z.int(), z.minimum(0)), 0),
  SIMPLEANALYTICS_BASE_URL: z._default(z.string(), 'https://simpleanalytics.com'),
  // Crawler hits (issue 41): the Cloudflare API's base (REST and GraphQL under it); tests point it at a fake.
  CLOUDFLARE_API_URL: z._default(z.string(), 'https://api.cloudflare.com/client/v4'),
  EVENT_QUEUE_URL: z.optional(z.string()),
  API_REQUESTS: z.optional(z.enum(['on', 'off'])),
  SMTP_URL: z.optional(z.string().check(z.regex(/^smtps?:\/\//))),
  MAIL_FROM: z.optional(z.string().check(z.minLength(3))),
  // Imports: the chunk queue and KMS key in AWS; the credential test's timeout (20 s).
  IMPORT_QUEUE_URL: z.optional(z.string()),
  // AWS: the bucket of site icons.
  ICON_BUCKET: z.optional(z.string()),
  IMPORT_KMS_KEY_ID: z.optional(z.string()),
  IMPORT_CREDENTIAL_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.minimum(1)), 20_000),
  IMPORT_RETRY_BASE_MS: z._default(z.coerce.number().check(z.int(), z.minimum(0)), 1_000),
  // AWS: Cognito's hosted sign-in domain (https://<prefix>.auth.<region>.amazoncognito.com), whose /oauth2/token and
  // /oauth2/revoke the dashboard's session function calls, and the dashboard's origin (its /login is the callback).
  AUTH_DOMAIN_URL: z.optional(z.url()),
  DASHBOARD_ORIGIN: z.optional(z.url()),
  // AWS: the dashboard's built index.html, inlined into the embed function's bundle (lambdaEnv).
  TT_DASHBOARD_HTML: z.optional(z.string()),
  // The dashboard's sign-in: how long a session lasts until sign-out (on AWS, the app client's refresh-token validity).
  DASHBOARD_SESSION_DAYS: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(365)), 30),
  // The most months a site may keep its rows (issue 42). Above 25 the CNIL's consent exemption no longer applies (README).
  RETENTION_MAX_MONTHS: z._default(z.coerce.number().check(z.int(), z.minimum(25), z.maximum(1200)), 25),
  // AWS: the event store (Timestream), set on the functions that read or write it.
  TIMESTREAM_DATABASE: z.optional(z.string()),
  TIMESTREAM_TABLE: z.optional(z.string()),
  // A ClickHouse server for events and reports instead of the embedded DuckDB (local runs; the stack sets it too).
  CLICKHOUSE_URL: z.optional(z.url()),
  CLICKHOUSE_USER: z._default(z.string(), 'default'),
  CLICKHOUSE_PASSWORD: z._default(z.string(), ''),
  // AWS: the Secrets Manager secret holding the ClickHouse user and password (JSON {"username","password"}), read at start.
  CLICKHOUSE_SECRET_ARN: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:secretsmanager:/))),
  CLICKHOUSE_DATABASE: z._default(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), 'tinytrack'),
  // Events as Parquet on S3 with a DynamoDB manifest (issue 44): locally an S3-compatible endpoint and bucket
  // (`http://host:port/bucket`, credentials as userinfo or the AWS variables); on AWS the stack's bucket and table.
  S3_EVENTS_URL: z.optional(z.url()),
  EVENTS_BUCKET: z.optional(z.string()),
  EVENT_FILES_TABLE: z.optional(z.string()),
  // AWS: the built latest.js, inlined into the collector's bundle (lambdaEnv).
  TT_TRACKER_JS: z.optional(z.string()),
  // AWS: the OpenAPI document as JSON, gzipped and base64, inlined into the meta group's bundle (lambdaEnv).
  TT_OPENAPI_GZ: z.optional(z.string()),
  // Search Console (issue 41): the OAuth client, where Google sends the consent back (a dashboard page), Google's base URLs.
  GOOGLE_CLIENT_ID: z.optional(z.string()),
  GOOGLE_CLIENT_SECRET: z.optional(z.string()),
  // AWS: the Secrets Manager secret holding the OAuth client secret (its plain text), read at start; never in the environment.
  GOOGLE_CLIENT_SECRET_ARN: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:secretsmanager:/))),
  GOOGLE_REDIRECT_URI: z.optional(z.url()),
  GOOGLE_AUTH_URL: z._default(z.url(), 'https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: z._default(z.url(), 'https://oauth2.googleapis.com/token'),
  GOOGLE_REVOKE_URL: z._default(z.url(), 'https://oauth2.googleapis.com/revoke'),
  GOOGLE_API_URL: z._default(z.url(), 'https://www.googleapis.com'),
  GOOGLE_RETRY_BASE_MS: z._default(z.coerce.number().check(z.int(), z.minimum(0)), 2_000),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  tableName: string;
  /** Unset: the local issuer of DESIGN.md §3. */
  auth: { issuer: string; audience: string; jwksUri: string } | null;
  verifyUrlTemplate: string;
  verifyAllowPrivateAddresses: boolean;
  /**
   * PUBLIC_URL: the origins browsers load latest.js from (comma-separated). Null when unset: the
   * local server then uses its own `http://HOST:PORT` (known once it listens), AWS nothing extra.
   */
  publicUrls: readonly string[] | null;
  /** TRUST_PROXY=<n>: the client IP is the n-th X-Forwarded-For entry from the right; 0, the socket address. */
  trustedProxies: number;
  /** Locally, a beacon is journaled (on disk) before its 200; off, a crash may lose the last half second. */
  durableReceipt: boolean;
  eventIndexBytes: number;
  /** DUCKDB_MEMORY_MB: DuckDB's memory_limit, MiB (without one it may hold 80 % of the machine's memory as cached pages). */
  duckdbMemoryMb: number;
  /** EXPORT_MAX_ROWS: the most rows one export may answer (the AWS stack sets it: Lambda streams at most 200 MB); null (0, unset) for no limit. */
  exportMaxRows: number | null;
  simpleAnalyticsBaseUrl: string;
  /** The Cloudflare API's base URL (crawler hits). */
  cloudflareApiUrl: string;
  /** AWS: the SQS queue between collector and writer. */
  eventQueueUrl: string | null;
  /** False (API_REQUESTS=off, set by the stack on Timestream): the event store keeps no API requests, so POST /api/ingest answers 501. */
  apiRequestsAvailable: boolean;
  /** SMTP_URL: alert mail through this relay; unset locally, `.eml` files in DATA_DIR/outbox/. */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender of alert mail (on AWS, an address of the SES identity the stack was given); null when unset. */
  mailFrom: string | null;
  /** AWS: the SQS queue of import chunks. */
  importQueueUrl: string | null;
  /** AWS: the KMS key that wraps import credentials. */
  importKmsKeyId: string | null;
  /** AWS: the S3 bucket of site icons (locally they are files in DATA_DIR). */
  iconBucket: string | null;
  /** The import credential test is abandoned after this long (spec part 8: 20 s). */
  importCredentialTimeoutMs: number;
  /** First backoff of import export retries (429, 5xx), doubling up to 30 s. */
  importRetryBaseMs: number;
  /** How long a dashboard session lasts (DASHBOARD_SESSION_DAYS, 1 to 365). */
  dashboardSessionDays: number;
  /** The most months a site may keep its rows (RETENTION_MAX_MONTHS, 25 to 1200; default 25, the CNIL's limit). */
  retentionMaxMonths: number;
  /** AWS: Cognito's hosted sign-in domain (AUTH_DOMAIN_URL), without a trailing slash. */
  authDomainUrl: string | null;
  /** AWS: the dashboard's origin (DASHBOARD_ORIGIN), without a trailing slash. */
  dashboardOrigin: string | null;
  /** AWS: the dashboard's built index.html (the embed function serves it). */
  dashboardPage: string | null;
  /** AWS: the Timestream database and table of the event store. */
  timestream: { database: string; table: string } | null;
  /** CLICKHOUSE_URL and its credentials and database: events and reports on that server; null, on the embedded DuckDB. */
  clickhouse: { url: string; user: string; password: string; database: string } | null;
  /** Events on S3 (S3_EVENTS_URL locally, EVENTS_BUCKET on AWS) with their manifest table; null, on another store. */
  s3Events: S3EventsConfig | null;
  /** AWS: where the ClickHouse credentials are (never in the environment); null locally. */
  clickhouseSecretArn: string | null;
  /** AWS: where Google's OAuth client secret is (never in the environment); null locally. */
  googleClientSecretArn: string | null;
  /** AWS: the built, minified latest.js (locally it is built at start instead). */
  trackerScript: string | null;
  /** AWS: the OpenAPI document's JSON, gzipped, in base64 (locally it is built on first use). */
  openApiGzip: string | null;
  /** Search Console: Google's OAuth client and endpoints (GOOGLE_*); the client id null when not set up. */
  google: GoogleSettings;
}

/** The variables behind the settings an entry may require (`required`), as the operator sets them. */
const VARIABLES = {
  auth: 'AUTH_ISSUER',
  eventQueueUrl: 'EVENT_QUEUE_URL',
  importQueueUrl: 'IMPORT_QUEUE_URL',
  importKmsKeyId: 'IMPORT_KMS_KEY_ID',
  iconBucket: 'ICON_BUCKET',
  timestream: 'TIMESTREAM_DATABASE and TIMESTREAM_TABLE',
  trackerScript: 'TT_TRACKER_JS',
  openApiGzip: 'TT_OPENAPI_GZ',
  authDomainUrl: 'AUTH_DOMAIN_URL',
  dashboardOrigin: 'DASHBOARD_ORIGIN',
  dashboardPage: 'TT_DASHBOARD_HTML',
} as const satisfies Partial<Record<keyof Config, string>>;

/**
 * A setting the entry cannot work without, or a ConfigError naming its
 * variable: each composition root asks for its own at start, so a missing
 * queue URL stops the function's init rather than its first request.
 */
export function required<K extends keyof typeof VARIABLES>(config: Readonly<Config>, key: K): NonNullable<Config[K]> {
  const value = config[key];
  if (value === null || value === undefined) throw new ConfigError(`invalid configuration: ${VARIABLES[key]} is required`);
  return value as NonNullable<Config[K]>;
}

/**
 * The environment of a Lambda function: its variables, and the texts
 * bundling inlined (esbuild `define` of these very expressions; a Lambda
 * environment is too small to carry them).
 */
export function lambdaEnv(): NodeJS.ProcessEnv {
  return { ...process.env, TT_TRACKER_JS: process.env.TT_TRACKER_JS, TT_OPENAPI_GZ: process.env.TT_OPENAPI_GZ, TT_DASHBOARD_HTML: process.env.TT_DASHBOARD_HTML };
}

/** A configuration the service refuses to start with; the message is one line for the operator. */
export class ConfigError extends Error {}

/** `https://a.example, https://b.example/prefix` → the trimmed http(s) URLs; anything else is a configuration error. */
export function parsePublicUrls(value: string): string[] {
  const urls = value
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  for (const u of urls) {
    let ok = false;
    try {
      const url = new URL(u);
      ok = (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '';
    } catch {
      ok = false;
    }
    if (!ok) throw new Error(`invalid configuration: PUBLIC_URL: ${u} is not an http(s) origin`);
  }
  return urls;
}

/** Where the S3 event store keeps its files: an endpoint (null: AWS's own), the bucket, credentials (null: the AWS defaults), the manifest table. */
export interface S3EventsConfig {
  endpoint: string | null;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  table: string;
}

/** S3_EVENTS_URL (`http(s)://[key:secret@]host[:port]/bucket`), else the stack's EVENTS_BUCKET; null when neither is set. */
function s3EventsConfig(url: string | undefined, bucket: string | undefined, table: string): S3EventsConfig | null {
  if (!url) return bucket ? { endpoint: null, bucket, credentials: null, table } : null;
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.split('/').filter((p) => p !== '')[0] ?? '');
  if (!/^(http|https):$/.test(parsed.protocol) || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name)) {
    throw new ConfigError('invalid configuration: S3_EVENTS_URL must be http(s)://host[:port]/bucket');
  }
  const credentials = parsed.username ? { accessKeyId: decodeURIComponent(parsed.username), secretAccessKey: decodeURIComponent(parsed.password) } : null;
  return { endpoint: parsed.origin, bucket: name, credentials, table };
}

const redirectDefault = (origin: string | undefined) => (origin ? `${origin.replace(/\/$/, '')}/account` : null);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = Env.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${issues}`);
  }
  const e = parsed.data;
  // Without an audience every client of the issuer could sign in here with its tokens.
  if (e.AUTH_ISSUER && !e.AUTH_AUDIENCE) throw new ConfigError('invalid configuration: AUTH_ISSUER needs AUTH_AUDIENCE (the client id its ID tokens are issued to)');
  if ((e.TIMESTREAM_DATABASE === undefined) !== (e.TIMESTREAM_TABLE === undefined)) {
    throw new ConfigError('invalid configuration: TIMESTREAM_DATABASE and TIMESTREAM_TABLE are set together');
  }
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    dataDir: e.DATA_DIR,
    tableName: e.TABLE_NAME,
    auth: e.AUTH_ISSUER && e.AUTH_AUDIENCE
      ? {
          issuer: e.AUTH_ISSUER,
          audience: e.AUTH_AUDIENCE,
          jwksUri: e.AUTH_JWKS_URI ?? `${e.AUTH_ISSUER.replace(/\/$/, '')}/.well-known/jwks.json`,
        }
      : null,
    verifyUrlTemplate: e.VERIFY_URL_TEMPLATE,
    verifyAllowPrivateAddresses: e.VERIFY_ALLOW_PRIVATE_ADDRESSES === '1',
    publicUrls: e.PUBLIC_URL === undefined ? null : parsePublicUrls(e.PUBLIC_URL),
    trustedProxies: e.TRUST_PROXY,
    durableReceipt: e.DURABLE_RECEIPT === '1',
    eventIndexBytes: e.EVENT_INDEX_MB * 2 ** 20,
    duckdbMemoryMb: e.DUCKDB_MEMORY_MB,
    exportMaxRows: e.EXPORT_MAX_ROWS === 0 ? null : e.EXPORT_MAX_ROWS,
    simpleAnalyticsBaseUrl: e.SIMPLEANALYTICS_BASE_URL,
    cloudflareApiUrl: e.CLOUDFLARE_API_URL,
    eventQueueUrl: e.EVENT_QUEUE_URL ?? null,
    apiRequestsAvailable: e.API_REQUESTS !== 'off',
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM ?? null,
    importQueueUrl: e.IMPORT_QUEUE_URL ?? null,
    importKmsKeyId: e.IMPORT_KMS_KEY_ID ?? null,
    iconBucket: e.ICON_BUCKET ?? null,
    importCredentialTimeoutMs: e.IMPORT_CREDENTIAL_TIMEOUT_MS,
    importRetryBaseMs: e.IMPORT_RETRY_BASE_MS,
    dashboardSessionDays: e.DASHBOARD_SESSION_DAYS,
    retentionMaxMonths: e.RETENTION_MAX_MONTHS,
    authDomainUrl: e.AUTH_DOMAIN_URL?.replace(/\/$/, '') ?? null,
    dashboardOrigin: e.DASHBOARD_ORIGIN?.replace(/\/$/, '') ?? null,
    dashboardPage: e.TT_DASHBOARD_HTML ?? null,
    timestream: e.TIMESTREAM_DATABASE && e.TIMESTREAM_TABLE ? { database: e.TIMESTREAM_DATABASE, table: e.TIMESTREAM_TABLE } : null,
    clickhouseSecretArn: e.CLICKHOUSE_SECRET_ARN ?? null,
    googleClientSecretArn: e.GOOGLE_CLIENT_SECRET_ARN ?? null,
    s3Events: s3EventsConfig(e.S3_EVENTS_URL, e.EVENTS_BUCKET, e.EVENT_FILES_TABLE ?? `${e.TABLE_NAME}-event-files`),
    clickhouse: e.CLICKHOUSE_URL ? { url: e.CLICKHOUSE_URL, user: e.CLICKHOUSE_USER, password: e.CLICKHOUSE_PASSWORD, database: e.CLICKHOUSE_DATABASE } : null,
    trackerScript: e.TT_TRACKER_JS ?? null,
    openApiGzip: e.TT_OPENAPI_GZ ?? null,
    google: {
      clientId: e.GOOGLE_CLIENT_ID ?? null,
      clientSecret: e.GOOGLE_CLIENT_SECRET ?? null,
      // Default: the dashboard's account page, which finishes the consent (GET /api/import-oauth/google/callback).
      redirectUri: e.GOOGLE_REDIRECT_URI ?? redirectDefault(e.DASHBOARD_ORIGIN ?? e.PUBLIC_URL?.split(',')[0]?.trim()),
      authUrl: e.GOOGLE_AUTH_URL,
      tokenUrl: e.GOOGLE_TOKEN_URL,
      revokeUrl: e.GOOGLE_REVOKE_URL,
      apiUrl: e.GOOGLE_API_URL.replace(/\/$/, ''),
      retryBaseMs: e.GOOGLE_RETRY_BASE_MS,
    },
  });
}
