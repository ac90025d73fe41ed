/**
 * Daily rollups of the DuckDB store (issue 15): per site, registration and
 * UTC day, each breakdown's labels with their canonical pageviews (or events)
 * and distinct visitors, and the day's event totals. Visitor hashes never
 * repeat across UTC days, so a range of whole days is the sum of its days;
 * the report store adds the raw rows of the partial days at its ends.
 *
 * A day's rollup is a cache of a pure function of its rows: it is built
 * when a report first needs it, on the writer connection between batches,
 * and every batch deletes the rollups of the days it touches (and the day on
 * either side, whose copy and first-pageview flags it may repair), in the
 * batch's own transaction. So a rollup is either absent or equal to what
 * its rows give now; it is never merely close.
 */
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { DAY_MS } from '#domain/event-flags/flag-index.ts';
import { BREAKDOWN_DIMS, type BreakdownDim } from '#domain/reports/query.ts';
import type { EventRow } from '#ports/event-store.ts';
import { CANONICAL, CANONICAL_EVENTS, DuckDbSql, VISITORS } from '#reports/sql/dialects/duckdb.ts';
import { entryOnly, labelExpression } from '#reports/sql/text.ts';
import { ROLLUP_DAYS, ROLLUP_LABELS } from '#reports/sql/rolled.ts';

/** The day's event totals: all named events and their distinct visitors (a label of its own). */
export const EVENT_TOTALS = 'event_totals';
export type RollupDim = BreakdownDim | typeof EVENT_TOTALS;

export const ROLLUP_TABLES = [
  `CREATE TABLE IF NOT EXISTS ${ROLLUP_DAYS} (site VARCHAR NOT NULL, registration VARCHAR NOT NULL, day INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${ROLLUP_LABELS} (site VARCHAR NOT NULL, registration VARCHAR NOT NULL, day INTEGER NOT NULL, dim VARCHAR NOT NULL,
     name VARCHAR NOT NULL, value BIGINT NOT NULL, visitors BIGINT NOT NULL, last_seen BIGINT)`,
];

/** Only whole UTC days before yesterday are rolled up: beacons of yesterday may still arrive (queues, retries). */
export function sealedDays(fromMs: number, toMs: number, nowMs: number): { first: number; last: number } | null {
  const first = Math.ceil(fromMs / DAY_MS);
  const last = Math.min(Math.floor(toMs / DAY_MS) - 1, Math.floor(nowMs / DAY_MS) - 2);
  return first <= last ? { first, last } : null;
}

/** The rows a dimension counts and how it labels them, as in breakdown.ts and event-breakdown.ts. */
function rollupSelect(dim: RollupDim): string {
  const day = `(ts // ${DAY_MS})::INTEGER`;
  const scope = `site = $site AND registration = $registration AND ts >= $from AND ts < $to`;
  if (dim === 'events' || dim === EVENT_TOTALS) {
    const name = dim === 'events' ? 'event' : "''";
    return `SELECT site, registration, ${day} AS day, '${dim}' AS dim, ${name} AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
      FROM events WHERE ${CANONICAL_EVENTS} AND ${scope}
      GROUP BY ALL`;
  }
  return `SELECT site, registration, day, '${dim}' AS dim, coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors, NULL AS last_seen
    FROM (SELECT *, ${day} AS day, ${labelExpression(new DuckDbSql(), dim)} AS name FROM events WHERE ${CANONICAL} AND ${scope}${entryOnly(dim)})
    GROUP BY site, registration, day, coalesce(name, '')`;
}

const DIMS: readonly RollupDim[] = [...BREAKDOWN_DIMS, EVENT_TOTALS];

/** Days built per transaction, so a first read of a long range holds writes back a little at a time. */
const BUILD_DAYS = 31;

/**
 * Builds the missing rollups of `site` for days first..last. Runs on the
 * writer connection, between batches (the caller holds the writes' turn).
 */
export async function buildRollups(writer: DuckDBConnection, site: string, registration: string, first: number, last: number): Promise<void> {
  const built = await writer.runAndReadAll(`SELECT day FROM ${ROLLUP_DAYS} WHERE site = $site AND registration = $registration AND day BETWEEN $first AND $last`, {
    site,
    registration,
    first,
    last,
  });
  const have = new Set(built.getRowObjectsJS().map((r) => Number(r.day)));
  const missing: number[] = [];
  for (let d = first; d <= last; d++) if (!have.has(d)) missing.push(d);
  // Runs of consecutive missing days, each at most BUILD_DAYS long: one range scan each.
  for (let i = 0; i < missing.length; ) {
    let j = i;
    while (j + 1 < missing.length && missing[j + 1] === (missing[j] as number) + 1 && j + 1 - i < BUILD_DAYS) j++;
    const [from, to] = [missing[i] as number, missing[j] as number];
    await writer.run('BEGIN TRANSACTION');
    try {
      const range = { site, registration, from: from * DAY_MS, to: (to + 1) * DAY_MS };
      for (const dim of DIMS) await writer.run(`INSERT INTO ${ROLLUP_LABELS} ${rollupSelect(dim)}`, range);
      await writer.run(`INSERT INTO ${ROLLUP_DAYS} SELECT $site, $registration, unnest(range($from::INTEGER, $to::INTEGER + 1))`, { site, registration, from, to });
      await writer.run('COMMIT');
    } catch (e) {
      await writer.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
    i = j + 1;
  }
}

/** Inside a batch's transaction: forgets the rollups of every (site, registration) day the batch touches, and the days beside them. */
export async function invalidateRollups(writer: DuckDBConnection, rows: readonly EventRow[]): Promise<void> {
  const seen = new Set<string>();
  const sites: string[] = [];
  const registrations: string[] = [];
  const days: number[] = [];
  for (const r of rows) {
    const day = Math.floor(r.ts / DAY_MS);
    for (const d of [day - 1, day, day + 1]) {
      const key = `${r.site}\u0000${r.registration}\u0000${d}`;
      if (seen.has(key)) continue;
      seen.add(key);
      sites.push(r.site);
      registrations.push(r.registration);
      days.push(d);
    }
  }
  const params = { sites: listValue(sites), registrations: listValue(registrations), days: listValue(days) };
  for (const table of [ROLLUP_DAYS, ROLLUP_LABELS]) {
    await writer.run(
      `DELETE FROM ${table} USING (SELECT unnest($sites::VARCHAR[]) AS s, unnest($registrations::VARCHAR[]) AS r, unnest($days::INTEGER[]) AS d) AS touched
       WHERE ${table}.site = touched.s AND ${table}.registration = touched.r AND ${table}.day = touched.d`,
      params,
    );
  }
}

/** Every rollup goes (the flags were recomputed from scratch). */
export async function clearRollups(writer: DuckDBConnection): Promise<void> {
  for (const table of [ROLLUP_DAYS, ROLLUP_LABELS]) await writer.run(`DELETE FROM ${table}`);
}
