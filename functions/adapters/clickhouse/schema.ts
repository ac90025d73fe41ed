/**
 * The ClickHouse event table: one column per EventRow field, MergeTree-family
 * ordered by (site, ts) so a report reads only its site's time range, and
 * partitioned by month so retention drops whole parts. Replay, the first
 * pageview of a visitor-day and an append's page are decided when reports
 * read (the dialect's canonical rows), so a write never rewrites stored rows;
 * each batch lists the copies among its identities' rows (LISTED_COPIES), which
 * spares those reads the copy window.
 */
import { FILTERED_COLUMNS } from '#domain/reports/filter.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { clickhouseApiTables } from '#domain/api-requests/series-sql.ts';
import { clickhouseCrawlerTable } from '#domain/crawlers/hits-sql.ts';

type Kind = 'text' | 'int' | 'double' | 'bool';

interface Column {
  name: keyof EventRow;
  type: string;
  kind: Kind;
}

const text = (name: keyof EventRow, type = 'Nullable(String)'): Column => ({ name, type, kind: 'text' });
const int = (name: keyof EventRow): Column => ({ name, type: 'Nullable(Int32)', kind: 'int' });

export const COLUMNS: readonly Column[] = [
  text('site', 'String'),
  text('registration', 'String'),
  { name: 'ts', type: 'Int64', kind: 'int' },
  text('kind', 'LowCardinality(String)'),
  text('id', 'String'),
  text('original_id'),
  text('event'),
  text('visitor'),
  { name: 'unique', type: 'Nullable(Bool)', kind: 'bool' },
  text('page_id'),
  text('session_id'),
  text('path'),
  text('query'),
  text('referrer'),
  text('referrer_host'),
  text('utm_source'),
  text('utm_medium'),
  text('utm_campaign'),
  text('utm_term'),
  text('utm_content'),
  text('source'),
  text('country', 'LowCardinality(Nullable(String))'),
  text('browser', 'LowCardinality(Nullable(String))'),
  text('os', 'LowCardinality(Nullable(String))'),
  text('device', 'LowCardinality(Nullable(String))'),
  text('language', 'LowCardinality(Nullable(String))'),
  int('viewport_width'),
  int('viewport_height'),
  int('screen_width'),
  int('screen_height'),
  { name: 'duration', type: 'Nullable(Float64)', kind: 'double' },
  int('scrolled'),
  { name: 'bot', type: 'Bool', kind: 'bool' },
  text('metadata'),
  { name: 'https', type: 'Nullable(Bool)', kind: 'bool' },
  { name: 'imported', type: 'Bool', kind: 'bool' },
  text('source_id'),
];

export const EVENTS_TABLE = 'events';
const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * The daily rollups (rollups.ts): each breakdown's labels, the traffic per
 * quarter hour, each engaged page and the copies per site, registration, UTC day and build; the builds; and the stale
 * marks batches leave on the days they touch. The names carry the rules' version.
 */
export const ROLLUP_LABELS = 'rollup_v2_labels';
export const ROLLUP_BUILDS = 'rollup_v2_builds';
export const ROLLUP_STALE = 'rollup_v2_stale';
/** Per quarter hour of a day and build: canonical pageviews, visitors' first and last pageviews, pageviews without a hash counted unique. */
export const ROLLUP_SLOTS = 'rollup_v2_slots';
/** Each engaged page of a day and build (engaged-pages.ts, its appends summed in): ts, total duration, scroll and the columns filters compare. */
export const ROLLUP_PAGES = 'rollup_v2_pages';
/** The pageviews and events of a day and build that are copies (domain/rows/copies.ts): kind, id, ts, and whether it repeats its predecessor's ts (`exact`). */
export const ROLLUP_COPIES = 'rollup_v2_copies';

/**
 * The copies (domain/rows/copies.ts) among the rows stored since `LISTED_SINCE`: each batch,
 * once its rows are stored, lists those of its identities (clickhouse-event-store.ts). A row
 * stored twice (two deliveries before the table merges them) is listed `exact`.
 */
export const LISTED_COPIES = 'listed_copies';
/** From when (Unix ms) every copy among the stored rows is listed: 0 for a database that held no rows at version 6. */
export const LISTED_SINCE = 'listed_copies_since';
/**
 * The canonical appends among the rows stored since `LISTED_APPENDS_SINCE`, each with the id and
 * ts of its page (engaged-pages.ts: the latest canonical page of its original_id at most
 * APPEND_WINDOW_MS before it) and its duration and scroll: each batch, once its copies are listed,
 * lists the appends of its pages and those of its appends' pages. A later batch may give an
 * append another page, or make it a copy: reads keep the appends whose page they read, less the
 * listed copies.
 */
export const LISTED_APPENDS = 'listed_appends';
/** From when (Unix ms of page ts) every such append is listed: 0 for a database that held no rows at version 7. */
export const LISTED_APPENDS_SINCE = 'listed_appends_since';
/**
 * The tables a reports reader writes: the rollups it builds the first time a
 * report needs a sealed day (rollups.ts build), nothing else. Its user is
 * granted SELECT on the database and INSERT on these alone (readerGrants).
 */
export const READER_WRITES = [ROLLUP_LABELS, ROLLUP_SLOTS, ROLLUP_PAGES, ROLLUP_COPIES, ROLLUP_BUILDS] as const;

/** The GRANTs that give `user` what the public reports function does on `database` (README "Deploy to AWS"). */
export function readerGrants(database: string, user: string): string[] {
  return [`GRANT SELECT ON ${database}.* TO ${user};`, ...READER_WRITES.map((table) => `GRANT INSERT ON ${database}.${table} TO ${user};`)];
}

/** How much later than a migration's clock `LISTED_SINCE` starts: clocks of the instances that store rows may differ by this much. */
const LISTED_MARGIN_MS = 60_000;

/**
 * Days a variant's build is read after it was made (rollups.ts usable); the build goes a day after
 * that and its labels and slots a day later still (TTL, applied as parts are written and merged),
 * so no read names a build whose rows are already gone. The site's own builds stay.
 */
export const VARIANT_DAYS = 7;
/** Rows stored before are all the site's own, which it never drops: rewriting every part to apply it (the default) would be wasted on a big table. */
const variantTtl = (days: number) =>
  `MODIFY TTL toDateTime(intDiv(built_at, 1000000)) + INTERVAL ${days} DAY DELETE WHERE variant != '' SETTINGS materialize_ttl_after_modify = 0`;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A row as JSONEachRow writes it: integers rounded (null when out of range), non-finite numbers null, as the DuckDB store stages them. */
export function storedRow(row: EventRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of COLUMNS) {
    const v = row[c.name];
    if (v === null || v === undefined) out[c.name] = null;
    else if (c.name === 'ts') out[c.name] = Math.trunc(v as number);
    else if (c.kind === 'int') {
      const n = Math.round(v as number);
      out[c.name] = Number.isFinite(n) && n >= INT32_MIN && n <= INT32_MAX ? n : null;
    } else if (c.kind === 'double') out[c.name] = Number.isFinite(v) ? v : null;
    else if (c.kind === 'bool') out[c.name] = Boolean(v);
    else out[c.name] = v;
  }
  return out;
}

/** A quoted identifier. */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Where a list the writer keeps begins: at once on a database holding no rows, else a margin after the migration's clock. */
const listBegins = (db: string, table: string) =>
  `INSERT INTO ${ident(db)}.${table} (since)
   SELECT if(count() = 0, 0, toUnixTimestamp64Milli(now64(3)) + ${LISTED_MARGIN_MS}) FROM ${ident(db)}.${EVENTS_TABLE}`;

/**
 * Versioned migrations, each applied once and recorded; every statement is
 * idempotent too, so a start that died between a statement and its record
 * simply runs it again. A cluster would add ON CLUSTER and Replicated engines
 * (docs/scaling.md).
 */
const MIGRATIONS: readonly { version: number; statements: (db: string) => string[] }[] = [
  {
    version: 1,
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${EVENTS_TABLE} (${COLUMNS.map((c) => `${ident(c.name)} ${c.type}`).join(', ')})
       ENGINE = ReplacingMergeTree
       PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(ts))
       ORDER BY (site, ts, registration, id)`,
    ],
  },
  // Version 2 made the first rollup tables (rollup_v1_*), which version 3 replaces.
  { version: 2, statements: () => [] },
  {
    version: 3,
    // Builds and marks keep only each day's newest at merges; reads take the newest either way.
    statements: (db) => [
      ...['labels', 'builds', 'stale', 'slots', 'pages'].map((t) => `DROP TABLE IF EXISTS ${ident(db)}.${ident(`rollup_v1_${t}`)}`),
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ROLLUP_LABELS} (site String, registration String, day Int32, built_at Int64,
         dim LowCardinality(String), name String, value UInt64, visitors UInt64, last_seen Nullable(Int64))
       ENGINE = MergeTree ORDER BY (site, registration, dim, day, built_at, name)`,
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ROLLUP_BUILDS} (site String, registration String, day Int32, built_at Int64)
       ENGINE = ReplacingMergeTree(built_at) ORDER BY (site, registration, day)`,
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ROLLUP_STALE} (site String, registration String, day Int32, at Int64)
       ENGINE = ReplacingMergeTree(at) ORDER BY (site, registration, day)`,
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ROLLUP_PAGES} (site String, registration String, day Int32, built_at Int64,
         ts Int64, total_duration Nullable(Float64), scroll Nullable(Int32),
         ${FILTERED_COLUMNS.map((name) => `${ident(name)} ${COLUMNS.find((c) => c.name === name)?.type}`).join(', ')})
       ENGINE = MergeTree ORDER BY (site, registration, day, built_at)`,
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ROLLUP_SLOTS} (site String, registration String, day Int32, built_at Int64,
         slot UInt16, pageviews UInt64, firsts UInt64, lasts UInt64, unhashed UInt64)
       ENGINE = MergeTree ORDER BY (site, registration, day, built_at, slot)`,
    ],
  },
  {
    version: 4,
    // A build made before it lists no copies: `plain` false, so its days' rows are still read through the copy window.
    statements: (db) => [
      `ALTER TABLE ${ident(db)}.${ROLLUP_BUILDS} ADD COLUMN IF NOT EXISTS plain Bool DEFAULT false`,
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ROLLUP_COPIES} (site String, registration String, day Int32, built_at Int64,
         kind LowCardinality(String), id String, ts Int64, exact Bool)
       ENGINE = MergeTree ORDER BY (site, registration, day, built_at, kind)`,
    ],
  },
  {
    version: 5,
    // Labels, slots and builds per variant (reports/plan.ts rollupVariant): '' (what every row so far is) the site's own
    // rows. A variant's build of a day must not replace the site's at merges, so it joins the builds' sorting key. A variant's
    // rows expire (VARIANT_DAYS), its builds first.
    statements: (db) => [
      `ALTER TABLE ${ident(db)}.${ROLLUP_BUILDS} ADD COLUMN IF NOT EXISTS variant String, MODIFY ORDER BY (site, registration, day, variant)`,
      `ALTER TABLE ${ident(db)}.${ROLLUP_LABELS} ADD COLUMN IF NOT EXISTS variant String`,
      `ALTER TABLE ${ident(db)}.${ROLLUP_SLOTS} ADD COLUMN IF NOT EXISTS variant String`,
      `ALTER TABLE ${ident(db)}.${ROLLUP_BUILDS} ${variantTtl(VARIANT_DAYS + 1)}`,
      ...[ROLLUP_LABELS, ROLLUP_SLOTS].map((table) => `ALTER TABLE ${ident(db)}.${table} ${variantTtl(VARIANT_DAYS + 2)}`),
    ],
  },
  {
    version: 6,
    // Copies listed by the writer, so reads of the rows stored since need no copy window. Rows stored before were never
    // listed: LISTED_SINCE starts after them (run again, the statement only moves it later, which is safe).
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${LISTED_COPIES} (site String, registration String, kind LowCardinality(String), id String, ts Int64, exact Bool)
       ENGINE = ReplacingMergeTree ORDER BY (site, registration, kind, ts, id, exact)`,
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${LISTED_SINCE} (since Int64) ENGINE = MergeTree ORDER BY tuple()`,
      // A batch's look-up of its ids reads only the granules that may hold them (parts written before keep none: all are read).
      `ALTER TABLE ${ident(db)}.${EVENTS_TABLE} ADD INDEX IF NOT EXISTS id_bloom id TYPE bloom_filter(0.01) GRANULARITY 1`,
      listBegins(db, LISTED_SINCE),
    ],
  },
  {
    version: 7,
    // Appends listed with their page by the writer, so reads of the pages stored since need no window to find them.
    statements: (db) => [
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${LISTED_APPENDS} (site String, registration String, page_id String, page_ts Int64, id String, ts Int64,
         duration Nullable(Float64), scrolled Nullable(Int32))
       ENGINE = ReplacingMergeTree ORDER BY (site, registration, page_ts, page_id, id, ts)`,
      `CREATE TABLE IF NOT EXISTS ${ident(db)}.${LISTED_APPENDS_SINCE} (since Int64) ENGINE = MergeTree ORDER BY tuple()`,
      // A batch's look-up of the appends of its pages reads only the granules that may hold them.
      `ALTER TABLE ${ident(db)}.${EVENTS_TABLE} ADD INDEX IF NOT EXISTS original_bloom original_id TYPE bloom_filter(0.01) GRANULARITY 1`,
      listBegins(db, LISTED_APPENDS_SINCE),
    ],
  },
  {
    version: 8,
    // The API-requests series (issue 36): rows, and the rollups fed from their inserts.
    statements: (db) => clickhouseApiTables(db, ident),
  },
  {
    version: 9,
    // Crawler hits from a CDN zone (issue 41).
    statements: (db) => [clickhouseCrawlerTable(ident(db))],
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Creates the database when missing and applies the migrations it lacks, in order. */
export async function migrate(ch: ClickHouseExecutor, db: string): Promise<void> {
  await ch.command(`CREATE DATABASE IF NOT EXISTS ${ident(db)}`);
  await ch.command(`CREATE TABLE IF NOT EXISTS ${ident(db)}.${MIGRATIONS_TABLE} (version UInt32, applied_at DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY version`);
  const applied = new Set((await ch.query<{ version: number }>(`SELECT version FROM ${ident(db)}.${MIGRATIONS_TABLE}`)).map((r) => Number(r.version)));
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    for (const statement of m.statements(db)) await ch.command(statement);
    await ch.command(`INSERT INTO ${ident(db)}.${MIGRATIONS_TABLE} (version) VALUES ({version:UInt32})`, { version: m.version });
  }
}
