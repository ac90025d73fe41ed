/**
 * The writer's flag rules in SQL, recomputed from the stored rows alone:
 * over every row (a migration, and the tests' reference), or over the
 * identities, visitor-days and pages the flag index (domain/rows/flags/
 * flag-index.ts, the same rules decided in memory) handed over as
 * `flag_targets`. Each rule updates a row only where its value changes.
 * Rows are matched on (site, registration, kind, id, ts): the store keeps
 * one row per (site, registration, id, ts).
 */
import { DAY_MS } from '#domain/rows/days.ts';
import { COPY_WINDOW_MS } from '#domain/rows/flags/flag-index.ts';
import { sqlString } from '#domain/sql-literals.ts';

/**
 * One site registration's rows in [lo, hi] (Unix ms, lo a UTC day's start): the S3 store's
 * mirror (adapters/s3-events/mirror.ts) recomputes the flags of the days it loaded. The rows of
 * the day before lo are read, not updated: they must be loaded.
 */
export interface FlagRegion {
  site: string;
  registration: string;
  lo: number;
  hi: number;
}

/** Which rows a rule updates: every row, the targets' (`flag_targets`), or a region's. */
export type FlagScope = boolean | FlagRegion;

const regionOf = (scope: FlagScope): FlagRegion | null => (typeof scope === 'object' ? scope : null);

/** The region's rows from `before` ms ahead of it, as a FROM item named `alias`. */
const regionRows = (r: FlagRegion, alias: string, before: number) =>
  `(SELECT * FROM events WHERE site = ${sqlString(r.site)} AND registration = ${sqlString(r.registration)} AND ts BETWEEN ${r.lo - before} AND ${r.hi}) ${alias}`;

/** What the index could not decide alone, one row per target (a temp table of the writer's connection). */
export const TARGETS_TABLE = 'flag_targets';
export const TARGETS_DEFS = 'what VARCHAR, site VARCHAR, registration VARCHAR, kind VARCHAR, key UBIGINT, lo BIGINT, hi BIGINT';

const SAME = (a: string, b: string) => `${a}.site = ${b}.site AND ${a}.registration = ${b}.registration`;
const SAME_ROW = (t: string, x: string) => `${SAME(t, x)} AND ${t}.kind = ${x}.kind AND ${t}.id = ${x}.id AND ${t}.ts = ${x}.ts`;
const CANONICAL = (e: string) => `(${e}.kind = 'pageview' AND NOT ${e}.bot AND NOT ${e}.replay AND ${e}.visitor_key IS NOT NULL)`;

/** The identities to recompute, ranges merged: one row each. */
const IDENTITIES = `(SELECT site, registration, kind, key, min(lo) AS lo, max(hi) AS hi FROM ${TARGETS_TABLE} WHERE what = 'identity' GROUP BY ALL)`;

/**
 * replay: a row of the same identity within the window before it. An
 * identity's rows are read two days either side of its targets; those within
 * a day before to two days after are settled (their window read in full) and updated.
 */
function replayUpdate(table: string, scoped: FlagScope): string {
  const region = regionOf(scoped);
  if (region) return replaySet(table, regionRows(region, 'e', DAY_MS), `e.ts >= ${region.lo}`);
  return replaySet(
    table,
    scoped ? `events e JOIN ${IDENTITIES} g ON ${SAME('e', 'g')} AND e.kind = g.kind AND e.id_key = g.key AND e.ts BETWEEN g.lo - ${2 * DAY_MS} AND g.hi + ${2 * DAY_MS}` : 'events e',
    scoped ? `e.ts BETWEEN g.lo - ${DAY_MS} AND g.hi + ${2 * DAY_MS}` : 'true',
  );
}

function replaySet(table: string, from: string, settled: string): string {
  return `
    UPDATE ${table} t SET replay = x.replay FROM (
      SELECT e.site, e.registration, e.kind, e.id, e.ts, ${settled} AS settled,
        count(*) OVER (PARTITION BY e.site, e.registration, e.kind, e.id_key ORDER BY e.ts RANGE BETWEEN ${COPY_WINDOW_MS} PRECEDING AND 1 PRECEDING) > 0 AS replay
      FROM ${from}
    ) x
    WHERE x.settled AND ${SAME_ROW('t', 'x')} AND t.replay <> x.replay`;
}

/** The visitor-days to recompute: those named, and those of the pageviews whose replay flag may have moved. */
const VISITOR_DAYS = `(
  SELECT DISTINCT site, registration, key AS visitor_key, lo // ${DAY_MS} AS day FROM ${TARGETS_TABLE} WHERE what = 'visitor_day'
  UNION
  SELECT DISTINCT e.site, e.registration, e.visitor_key, e.ts // ${DAY_MS} AS day
  FROM events e JOIN ${IDENTITIES} g ON ${SAME('e', 'g')} AND e.kind = g.kind AND e.id_key = g.key AND e.ts BETWEEN g.lo - ${DAY_MS} AND g.hi + ${2 * DAY_MS}
  WHERE e.kind = 'pageview' AND e.visitor_key IS NOT NULL
)`;

/** visitor_first: the earliest canonical pageview of its visitor-day, ties to the smaller id. */
function firstUpdate(table: string, scoped: FlagScope): string {
  const region = regionOf(scoped);
  const from = region
    ? regionRows(region, 'e', 0)
    : scoped
    ? `events e SEMI JOIN ${VISITOR_DAYS} v ON ${SAME('e', 'v')} AND e.visitor_key = v.visitor_key AND e.ts BETWEEN v.day * ${DAY_MS} AND v.day * ${DAY_MS} + ${DAY_MS - 1}`
    : 'events e';
  return `
    UPDATE ${table} t SET visitor_first = x.first FROM (
      SELECT e.site, e.registration, e.kind, e.id, e.ts,
        ${CANONICAL('e')} AND row_number() OVER (PARTITION BY e.site, e.registration, e.visitor_key, e.ts // ${DAY_MS} ORDER BY ${CANONICAL('e')} DESC, e.ts, e.id) = 1 AS first
      FROM ${from}
    ) x
    WHERE ${SAME_ROW('t', 'x')} AND t.visitor_first <> x.first`;
}

/** The page identities whose appends to recompute: those named, and the pageview identities recomputed above. */
const PAGES = `(
  SELECT site, registration, key, min(lo) AS lo, max(hi) AS hi FROM ${TARGETS_TABLE}
  WHERE what = 'parent' OR (what = 'identity' AND kind = 'pageview') GROUP BY ALL
)`;

/** parent_ts: the earliest canonical (human, not a replay) page of the append's parent id within the window before it. */
function parentUpdate(table: string, scoped: FlagScope): string {
  const region = regionOf(scoped);
  const from = region ? regionRows(region, 'a', 0) : scoped ? `events a JOIN ${PAGES} g ON ${SAME('a', 'g')} AND a.parent_key = g.key AND a.ts BETWEEN g.lo - ${DAY_MS} AND g.hi + ${2 * DAY_MS}` : 'events a';
  return `
    UPDATE ${table} t SET parent_ts = x.parent_ts FROM (
      SELECT a.site, a.registration, a.kind, a.id, a.ts, (
        SELECT min(p.ts) FROM events p
        WHERE ${SAME('p', 'a')} AND p.kind = 'pageview' AND p.id_key = a.parent_key AND NOT p.bot AND NOT p.replay AND p.ts BETWEEN a.ts - ${DAY_MS} AND a.ts
      ) AS parent_ts
      FROM ${from}
      WHERE a.kind = 'append'
    ) x
    WHERE ${SAME_ROW('t', 'x')} AND t.parent_ts IS DISTINCT FROM x.parent_ts`;
}

/** The statements, in order (visitor_first and parent_ts read replay), for each of `tables`. */
export function flagRuleStatements(tables: readonly string[], scoped: FlagScope): string[] {
  return [replayUpdate, firstUpdate, parentUpdate].flatMap((rule) => tables.map((table) => rule(table, scoped)));
}

/** The recomputed visitor-days with their first's ts now (null: none), for the index to take back. */
export const RECOMPUTED_FIRSTS = `
  SELECT v.site, v.registration, v.visitor_key, v.day, min(e.ts) FILTER (WHERE e.visitor_first) AS first
  FROM ${VISITOR_DAYS} v LEFT JOIN events e
    ON ${SAME('e', 'v')} AND e.visitor_key = v.visitor_key AND e.ts BETWEEN v.day * ${DAY_MS} AND v.day * ${DAY_MS} + ${DAY_MS - 1}
  GROUP BY ALL`;
