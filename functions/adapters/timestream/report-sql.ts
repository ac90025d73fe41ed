/**
 * The report queries in Timestream's SQL dialect, as pure text builders. The
 * same semantics as functions/adapters/duckdb/duckdb-report-store.ts: every
 * query starts from canonical human pageviews (non-bot pageview records
 * de-duplicated by id), with appends joined by original_id for engagement.
 *
 * Timestream has no bind parameters, so every value enters the text as a
 * literal: strings through `sqlString` (quotes doubled, NUL refused), numbers
 * only after validation (`sqlInteger`, `sqlNumber`), identifiers quoted.
 *
 * Records are multi-measure (timestream-event-store.ts): `measure_name` is the
 * kind, `time` the arrival time, dimensions and measures are columns. A column
 * exists only once some record carried it (nulls are never written), so each
 * query reads the table through `scan`, which projects the columns it needs
 * and stands a typed NULL in for any the table does not have (yet).
 */
import type { EventRow } from '#ports/event-store.ts';
import type { ReportScope, SiteRef, TrafficScope } from '#ports/report-store.ts';
import { badRequestError } from '#domain/errors.ts';
import { FILTER_COLUMNS, type FilterClause } from '#domain/reports/filter.ts';
import { BREAKDOWN_COLUMNS, SCREEN_CLASSES, type BreakdownDim } from '#domain/reports/query.ts';

type SqlType = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';
export type ColumnName = Exclude<keyof EventRow, 'ts'>;

/** Every column the event store may write, with its type (timestream-event-store.ts). */
export const COLUMN_TYPES: Readonly<Record<ColumnName, SqlType>> = {
  site: 'VARCHAR', registration: 'VARCHAR', id: 'VARCHAR', kind: 'VARCHAR', country: 'VARCHAR', browser: 'VARCHAR', os: 'VARCHAR', device: 'VARCHAR', language: 'VARCHAR',
  original_id: 'VARCHAR', event: 'VARCHAR', visitor: 'VARCHAR', page_id: 'VARCHAR', session_id: 'VARCHAR', path: 'VARCHAR', query: 'VARCHAR',
  referrer: 'VARCHAR', referrer_host: 'VARCHAR', utm_source: 'VARCHAR', utm_medium: 'VARCHAR', utm_campaign: 'VARCHAR', utm_term: 'VARCHAR',
  utm_content: 'VARCHAR', source: 'VARCHAR', metadata: 'VARCHAR', source_id: 'VARCHAR',
  viewport_width: 'BIGINT', viewport_height: 'BIGINT', screen_width: 'BIGINT', screen_height: 'BIGINT', scrolled: 'BIGINT',
  duration: 'DOUBLE',
  unique: 'BOOLEAN', bot: 'BOOLEAN', https: 'BOOLEAN', imported: 'BOOLEAN',
};

const isColumn = (name: string): name is ColumnName => Object.hasOwn(COLUMN_TYPES, name);

/** What the builders need to know about the table. */
export interface SqlContext {
  database: string;
  table: string;
  /** Whether the table has the column; absent ones read as typed NULLs. */
  has(column: ColumnName): boolean;
}

/** A string literal: single quotes doubled (Timestream's only escape; backslashes are plain characters). */
export function sqlString(value: string): string {
  if (value.includes('\u0000')) throw new RangeError('NUL character in an SQL string literal');
  return `'${value.replaceAll("'", "''")}'`;
}

/** A quoted identifier: double quotes doubled. */
export function sqlIdentifier(name: string): string {
  if (name === '' || name.includes('\u0000')) throw new RangeError('invalid SQL identifier');
  return `"${name.replaceAll('"', '""')}"`;
}

/** An integer literal; anything but a safe integer is refused rather than written. */
export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${String(value)}`);
  return String(value);
}

/** A LIMIT count: a non-negative safe integer. */
export function sqlLimit(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a valid limit: ${String(value)}`);
  return String(value);
}

/** A numeric literal for thresholds: any finite number (JS prints it as digits, '.', '-', 'e' and '+' only). */
export function sqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${String(value)}`);
  return String(value);
}

const ms = (value: number) => `from_milliseconds(${sqlInteger(value)})`;
const NOT_BOT = 'NOT coalesce("bot", false)';

/**
 * The bucket index of `ts` as a balanced tree of comparisons over the sorted
 * boundaries (as in the DuckDB store): bucket i is [b_i, b_{i+1}).
 */
export function bucketExpression(bounds: readonly number[], lo = 0, hi = bounds.length - 2): string {
  if (lo >= hi) return String(lo);
  const mid = Math.floor((lo + hi + 1) / 2);
  return `(CASE WHEN "ts" < ${sqlInteger(bounds[mid]!)} THEN ${bucketExpression(bounds, lo, mid - 1)} ELSE ${bucketExpression(bounds, mid, hi)} END)`;
}

/**
 * The filter clauses as ` AND …` conditions over the scanned columns; a missing label is ''.
 * A value with NUL (`%00`) cannot be written as a Timestream literal: 400 `invalid filter`.
 */
export function filterSql(filters: readonly FilterClause[]): string {
  return filters
    .map((f) => {
      if (f.value.includes('\u0000')) throw badRequestError('invalid filter');
      const column = `coalesce(${sqlIdentifier(FILTER_COLUMNS[f.dim])}, '')`;
      if (f.op === 'eq') return ` AND ${column} = ${sqlString(f.value)}`;
      if (f.op === 'neq') return ` AND ${column} <> ${sqlString(f.value)}`;
      // Every string contains the empty one.
      if (f.value === '') return '';
      return ` AND strpos(${column}, ${sqlString(f.value)}) > 0`;
    })
    .join('');
}

const filterColumns = (filters: readonly FilterClause[]) => filters.map((f) => FILTER_COLUMNS[f.dim]);

interface ScanRange {
  kinds: readonly ('pageview' | 'event' | 'append')[];
  sites: readonly SiteRef[];
  /** Inclusive, Unix ms. */
  from: number;
  /** Exclusive, Unix ms; none for "since". */
  to?: number;
}

/**
 * The records of some kinds, sites and time range as a derived table with
 * `ts` (Unix ms) and the named columns, of the sites' current registrations
 * only. The range is on `time` and the site on the partition key, so Timestream prunes before anything else runs.
 */
export function scan(ctx: SqlContext, range: ScanRange, columns: readonly string[]): string {
  const wanted = [...new Set(columns)];
  const column = (name: string) => {
    if (!isColumn(name)) throw new RangeError(`unknown column: ${name}`);
    return ctx.has(name) ? sqlIdentifier(name) : `CAST(NULL AS ${COLUMN_TYPES[name]})`;
  };
  const projection = ['to_milliseconds(time) AS "ts"', ...wanted.map((name) => `${column(name)} AS ${sqlIdentifier(name)}`)];
  const where = [
    `measure_name IN (${range.kinds.map(sqlString).join(', ')})`,
    `${column('site')} IN (${range.sites.map((s) => sqlString(s.site)).join(', ')})`,
    // A registration key belongs to one hostname (domain/registration.ts), so the two lists pick exactly the sites' own
    // rows. Records written before registrations existed have none and are shown to no one.
    `${column('registration')} IN (${range.sites.map((s) => sqlString(s.registration)).join(', ')})`,
    `time >= ${ms(range.from)}`,
    ...(range.to === undefined ? [] : [`time < ${ms(range.to)}`]),
  ];
  return `(SELECT ${projection.join(', ')} FROM ${sqlIdentifier(ctx.database)}.${sqlIdentifier(ctx.table)} WHERE ${where.join(' AND ')})`;
}

/**
 * Canonical pageviews in [from, to) that have engagement: the page's own
 * duration plus its appends' (summed), and the maximum scroll. Appends may
 * arrive after `to`, so theirs is a "since" range. (`greatest` is NULL when
 * any argument is: the coalesces make it skip a missing side.)
 */
function pagesSql(ctx: SqlContext, sites: readonly SiteRef[], from: number, to: number, filters: readonly FilterClause[]): string {
  const appends = scan(ctx, { kinds: ['append'], sites, from }, ['site', 'original_id', 'duration', 'scrolled']);
  const pageviews = scan(ctx, { kinds: ['pageview'], sites, from, to }, ['site', 'id', 'duration', 'scrolled', 'bot', ...filterColumns(filters)]);
  return `
    ap AS (
      SELECT "site", "original_id" AS "id", sum("duration") AS "duration", max("scrolled") AS "scrolled"
      FROM ${appends} AS e
      WHERE "original_id" IS NOT NULL
      GROUP BY "site", "original_id"
    ),
    pv AS (
      SELECT "site", "id", min("ts") AS "ts", max("duration") AS "own_duration", max("scrolled") AS "own_scroll"
      FROM ${pageviews} AS e
      WHERE ${NOT_BOT}${filterSql(filters)}
        AND ("duration" IS NOT NULL OR "scrolled" IS NOT NULL OR "id" IN (SELECT "id" FROM ap))
      GROUP BY "site", "id"
    ),
    page AS (
      SELECT pv."site", pv."id", pv."ts",
             CASE WHEN pv."own_duration" IS NULL AND ap."duration" IS NULL THEN NULL
                  ELSE coalesce(pv."own_duration", 0) + coalesce(ap."duration", 0) END AS "total_duration",
             greatest(coalesce(pv."own_scroll", ap."scrolled"), coalesce(ap."scrolled", pv."own_scroll")) AS "scroll"
      FROM pv LEFT JOIN ap ON ap."site" = pv."site" AND ap."id" = pv."id"
    )`;
}

const firstAndLast = (bounds: readonly number[]) => ({ from: bounds[0]!, to: bounds[bounds.length - 1]! });

/** Canonical pageviews and visitors per site and bucket (or per site over the range, bucket NULL). */
export function trafficCountsSql(ctx: SqlContext, scope: TrafficScope, perBucket: boolean): string {
  const { from, to } = firstAndLast(scope.boundaries);
  const rows = scan(ctx, { kinds: ['pageview'], sites: scope.sites, from, to }, ['site', 'id', 'visitor', 'unique', 'bot', ...filterColumns(scope.filters)]);
  const bucket = perBucket ? bucketExpression(scope.boundaries) : 'CAST(NULL AS INTEGER)';
  return `
    SELECT "site", "bucket", count(DISTINCT "id") AS "pageviews",
           count(DISTINCT "visitor") + count(DISTINCT CASE WHEN "visitor" IS NULL AND coalesce("unique", false) THEN "id" END) AS "visitors"
    FROM (
      SELECT "site", "id", "visitor", "unique", ${bucket} AS "bucket"
      FROM ${rows} AS e
      WHERE ${NOT_BOT}${filterSql(scope.filters)}
    ) AS b
    GROUP BY "site", "bucket"`;
}

/**
 * Median duration (of totals of at least 5 s) and mean scroll per site and
 * bucket, plus per site over the range (bucket NULL). The median is exact:
 * the qualifying totals sorted (array_sort puts the NULLs of the others
 * last), then the middle one or the mean of the middle two.
 */
export function trafficEngagementSql(ctx: SqlContext, scope: TrafficScope): string {
  const { from, to } = firstAndLast(scope.boundaries);
  return `
    WITH ${pagesSql(ctx, scope.sites, from, to, scope.filters)},
    b AS (
      SELECT "site", ${bucketExpression(scope.boundaries)} AS "bucket", "total_duration", "scroll" FROM page
      UNION ALL
      SELECT "site", CAST(NULL AS INTEGER) AS "bucket", "total_duration", "scroll" FROM page
    ),
    g AS (
      SELECT "site", "bucket", avg("scroll") AS "scrolled",
             count(CASE WHEN "total_duration" >= 5 THEN 1 END) AS "n",
             array_sort(array_agg(CASE WHEN "total_duration" >= 5 THEN "total_duration" END)) AS "sorted"
      FROM b
      GROUP BY "site", "bucket"
    )
    SELECT "site", "bucket", "scrolled",
           CASE WHEN "n" = 0 THEN NULL
                WHEN "n" % 2 = 1 THEN element_at("sorted", "n" / 2 + 1)
                ELSE (element_at("sorted", "n" / 2) + element_at("sorted", "n" / 2 + 1)) / 2 END AS "duration"
    FROM g`;
}

export function liveVisitorsSql(ctx: SqlContext, sites: readonly SiteRef[], since: number): string {
  const rows = scan(ctx, { kinds: ['pageview', 'event'], sites, from: since }, ['site', 'visitor', 'bot']);
  return `
    SELECT "site", count(DISTINCT "visitor") AS "visitors"
    FROM ${rows} AS e
    WHERE ${NOT_BOT} AND "visitor" IS NOT NULL
    GROUP BY "site"`;
}

/** The label of a pageview for a breakdown; screens are classes of screen_width. */
function labelExpression(dim: BreakdownDim): string {
  if (dim === 'screens') {
    const cases = SCREEN_CLASSES.filter((c) => Number.isFinite(c.below))
      .map((c) => `WHEN "screen_width" < ${sqlInteger(c.below)} THEN ${sqlString(c.name)}`)
      .join(' ');
    const last = SCREEN_CLASSES[SCREEN_CLASSES.length - 1]!.name;
    return `CASE WHEN "screen_width" IS NULL OR "screen_width" <= 0 THEN NULL ${cases} ELSE ${sqlString(last)} END`;
  }
  return sqlIdentifier(BREAKDOWN_COLUMNS[dim]);
}

/** Pages and referrers keep empty labels (direct traffic); every other list omits them. */
const keepsEmptyLabels = (dim: BreakdownDim) => dim === 'pages' || dim === 'referrers';

/** A pageview breakdown (not `events`): one row per canonical pageview, then grouped by label. */
export function breakdownSql(ctx: SqlContext, scope: ReportScope, dim: Exclude<BreakdownDim, 'events'>, limit: number): string {
  const rows = scan(ctx, { kinds: ['pageview'], sites: [scope], from: scope.from, to: scope.to }, [
    'id', 'visitor', 'unique', 'bot', BREAKDOWN_COLUMNS[dim], ...filterColumns(scope.filters),
  ]);
  const conditions = [...(dim === 'entry_pages' ? ['"uniq"'] : []), ...(keepsEmptyLabels(dim) ? [] : [`coalesce("label", '') <> ''`])];
  return `
    WITH pv AS (
      SELECT "id", arbitrary(${labelExpression(dim)}) AS "label", max("visitor") AS "visitor", bool_or(coalesce("unique", false)) AS "uniq"
      FROM ${rows} AS e
      WHERE ${NOT_BOT}${filterSql(scope.filters)}
      GROUP BY "id"
    )
    SELECT coalesce("label", '') AS "name", count(*) AS "value",
           count(DISTINCT "visitor") + count(CASE WHEN "visitor" IS NULL AND "uniq" THEN 1 END) AS "visitors"
    FROM pv${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}
    GROUP BY coalesce("label", '')
    ORDER BY "value" DESC, "name" ASC
    LIMIT ${sqlLimit(limit)}`;
}

function eventRows(ctx: SqlContext, scope: ReportScope): string {
  const rows = scan(ctx, { kinds: ['event'], sites: [scope], from: scope.from, to: scope.to }, [
    'id', 'visitor', 'event', 'bot', ...filterColumns(scope.filters),
  ]);
  return `${rows} AS e WHERE ${NOT_BOT}${filterSql(scope.filters)} AND coalesce("event", '') <> ''`;
}

/** Custom events by name, with distinct ids, visitors and the newest time. */
export function eventBreakdownSql(ctx: SqlContext, scope: ReportScope, limit: number): string {
  return `
    SELECT "event" AS "name", count(DISTINCT "id") AS "value", count(DISTINCT "visitor") AS "visitors", max("ts") AS "last_seen"
    FROM ${eventRows(ctx, scope)}
    GROUP BY "event"
    ORDER BY "value" DESC, "name" ASC
    LIMIT ${sqlLimit(limit)}`;
}

export function eventTotalsSql(ctx: SqlContext, scope: ReportScope): string {
  return `
    SELECT count(DISTINCT "id") AS "count", count(DISTINCT "visitor") AS "visitors"
    FROM ${eventRows(ctx, scope)}`;
}

export function livePagesSql(ctx: SqlContext, scope: SiteRef & { since: number; filters: readonly FilterClause[] }, limit: number): string {
  const rows = scan(ctx, { kinds: ['pageview'], sites: [scope], from: scope.since }, ['path', 'visitor', 'bot', ...filterColumns(scope.filters)]);
  return `
    SELECT "path" AS "name", count(DISTINCT "visitor") AS "visitors"
    FROM ${rows} AS e
    WHERE ${NOT_BOT} AND "visitor" IS NOT NULL${filterSql(scope.filters)}
    GROUP BY "path"
    ORDER BY "visitors" DESC, "name" ASC
    LIMIT ${sqlLimit(limit)}`;
}

/** Measured pages and how many reached each duration (d0…) and scroll (s0…) threshold. */
export function engagementSql(ctx: SqlContext, scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): string {
  const d = durations.map((s, i) => `count(CASE WHEN "total_duration" >= ${sqlNumber(s)} THEN 1 END) AS "d${i}"`);
  const s = scrolls.map((pct, i) => `count(CASE WHEN "scroll" >= ${sqlNumber(pct)} THEN 1 END) AS "s${i}"`);
  return `
    WITH ${pagesSql(ctx, [scope], scope.from, scope.to, scope.filters)}
    SELECT ${[
      'count(CASE WHEN "total_duration" IS NOT NULL THEN 1 END) AS "measured"',
      'count(CASE WHEN "scroll" IS NOT NULL THEN 1 END) AS "scroll_measured"',
      ...d,
      ...s,
    ].join(', ')}
    FROM page`;
}

/** The table's columns (SELECT permission suffices). */
export const describeSql = (ctx: Pick<SqlContext, 'database' | 'table'>) => `DESCRIBE ${sqlIdentifier(ctx.database)}.${sqlIdentifier(ctx.table)}`;
