/**
 * Removal of a site's event rows in a range of whole UTC days on the DuckDB
 * writer (ports/site-data.ts), in one transaction:
 * - the rows go from both tables behind the `events` view;
 * - the flags of the rows within a window after the range are recomputed by
 *   the writer's SQL rules (flag-rules-sql.ts): a row that copied a removed
 *   one is no longer a replay, an append whose page was removed has none, so
 *   reports equal those of a store that never held the removed rows;
 * - the rollups of the removed days, and of the day after (whose flags may
 *   have moved), go (rollups.ts): reports build them again from the rows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { DAY_MS } from '#domain/rows/days.ts';
import { APPEND_WINDOW_MS, COPY_WINDOW_MS } from '#domain/rows/flags/flag-index.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { flagRuleStatements, TARGETS_TABLE } from './flag-rules-sql.ts';
import { FRESH_TABLE, MAIN_TABLE } from './schema.ts';

/** How far after the range a stored row's flags may depend on a removed row. */
const AFTER_MS = Math.max(COPY_WINDOW_MS, APPEND_WINDOW_MS);

const SCOPE = 'site = $site AND registration = $registration';

/**
 * Deletes the rows of `ref` in [from, to) and repairs the flags after them; returns the rows
 * removed. Runs on the writer connection inside the caller's transaction (targets table included).
 */
export async function removeEventRows(writer: DuckDBConnection, ref: SiteRef, from: number, to: number): Promise<number> {
  const params = { site: ref.site, registration: ref.registration, from, to };
  let removed = 0;
  for (const table of [MAIN_TABLE, FRESH_TABLE]) {
    const result = await writer.run(`DELETE FROM ${table} WHERE ${SCOPE} AND ts >= $from AND ts < $to`, params);
    removed += Number(result.rowsChanged);
  }
  if (removed === 0) return 0;
  await writer.run(`DELETE FROM ${TARGETS_TABLE}`);
  // Every identity stored within the window after the range, and the page of every append there.
  const after = `FROM events WHERE ${SCOPE} AND ts >= $to AND ts <= $to + ${AFTER_MS}`;
  const afterParams = { site: ref.site, registration: ref.registration, to };
  await writer.run(`INSERT INTO ${TARGETS_TABLE} SELECT 'identity', site, registration, kind, id_key, ts, ts ${after}`, afterParams);
  await writer.run(`INSERT INTO ${TARGETS_TABLE} SELECT 'parent', site, registration, 'pageview', parent_key, ts, ts ${after} AND kind = 'append' AND parent_key IS NOT NULL`, afterParams);
  for (const statement of flagRuleStatements([MAIN_TABLE, FRESH_TABLE], true)) await writer.run(statement);
  return removed;
}

/** The UTC days whose rollups and flag-index entries a removal of [from, to) makes stale: the range's days and the day after. */
export function staleDays(from: number, to: number): { first: number; last: number } {
  return { first: Math.floor(from / DAY_MS), last: Math.floor(to / DAY_MS) + Math.ceil(AFTER_MS / DAY_MS) };
}
