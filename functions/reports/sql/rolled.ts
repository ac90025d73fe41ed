/**
 * DuckDB only: breakdowns and event totals from the daily rollups
 * (adapters/duckdb/rollups.ts) of the sealed whole UTC days inside the range,
 * plus the raw rows of its partial ends grouped by UTC day, summed per name.
 * Visitor hashes never repeat across UTC days, so per-day distinct counts
 * add up exactly; the result equals breakdown.ts's over the raw rows.
 *
 * The caller names the days it found built; every other day of the range is
 * read from rows, as plain ts ranges the scan can prune. A batch may remove
 * a named day's rollup before this statement runs: each answer therefore
 * carries `still_built`, how many of the named days still have their marker
 * in the statement's own snapshot (a build writes marker and labels in one
 * transaction, a batch deletes both in one), and the caller asks again when
 * it is fewer.
 */
import { listValue } from '@duckdb/node-api';
import { DAY_MS } from '#domain/rows/days.ts';
import { BREAKDOWN_COLUMNS, type BreakdownDim } from '#domain/reports/query.ts';
import type { LabelDim, ReportScope, SiteRef } from '#ports/report-store.ts';
import { rowRanges, variantOf, type SealedDays } from './sealed-days.ts';
import { CANONICAL, CANONICAL_COLUMNS, CANONICAL_EVENT_COLUMNS, CANONICAL_EVENTS, VISITORS, type DuckDbSql } from './dialects/duckdb.ts';
import { entryOnly, filterSql, keepsEmptyLabels, labelExpression } from './text.ts';

/**
 * Written by the DuckDB store (adapters/duckdb/rollups.ts); the names carry the rules' version.
 * Labels, slots and days are kept per variant: the site's rows (''), or the rows one filter
 * clause keeps (sealed-days.ts rollupVariant).
 */
export const ROLLUP_LABELS = 'rollup_v5_labels';
export const ROLLUP_DAYS = 'rollup_v5_days';
/** Per quarter hour of a day: canonical pageviews, visitors' first and last pageviews, pageviews without a hash counted unique. */
export const ROLLUP_SLOTS = 'rollup_v5_slots';
/** Each engaged page of a day (engaged-pages.ts, its appends summed in): its ts, total duration, scroll and the columns filters compare. Built with variant '' only. */
export const ROLLUP_PAGES = 'rollup_v5_pages';
/** Tables earlier versions wrote, dropped at open. */
export const RETIRED_ROLLUPS = ['rollup_v1_labels', 'rollup_v1_days', ...[2, 3, 4].flatMap((v) => ['labels', 'days', 'slots', 'pages'].map((t) => `rollup_v${v}_${t}`))];

/** A row's UTC day. */
export const DAY = `ts // ${DAY_MS}`;

/** The scope's rows outside the named days that pass its filters, with only `columns` (rowsInRanges). */
export function rowsOutsideRollups(sql: DuckDbSql, scope: SiteRef & Pick<ReportScope, 'from' | 'to' | 'filters'>, days: SealedDays, columns: readonly string[]): string {
  return sql.rowsInRanges(columns, rowRanges(scope, days), (a, b) => `${sql.sites([scope])} AND ts >= ${a} AND ts < ${b}${filterSql(sql, scope.filters)}`);
}

/** The rollup rows of the site's variant (sealed-days.ts rollupVariant). */
export const ofVariant = (sql: DuckDbSql, site: SiteRef, variant: string) => `${sql.sites([site])} AND variant = ${sql.bind(variant)}`;

/**
 * `day` is one of the named days: a range the scan prunes by when they run without a gap (the
 * usual case once a range is built), else a list (an empty one has no type to bind with).
 */
export function dayNamed(sql: DuckDbSql, days: SealedDays): string {
  const named = days.built;
  if (named.length === 0) return 'false';
  const [first, last] = [named[0] as number, named[named.length - 1] as number];
  if (last - first + 1 === named.length) return `day BETWEEN ${sql.bind(first)} AND ${sql.bind(last)}`;
  return `day IN (SELECT unnest(${sql.bind(listValue([...named]))}::INTEGER[]))`;
}

function rolledRows(sql: DuckDbSql, scope: ReportScope, dim: string, days: SealedDays): string {
  return `SELECT name, value, visitors, last_seen FROM ${ROLLUP_LABELS}
    WHERE ${ofVariant(sql, scope, variantOf(scope.filters))} AND dim = ${sql.bind(dim)} AND ${dayNamed(sql, days)}`;
}

/** How many named days still have their rollup (of the variant) in this statement's snapshot. */
export const stillBuilt = (sql: DuckDbSql, scope: SiteRef, days: SealedDays, variant: string) =>
  `(SELECT count(*) AS still_built FROM ${ROLLUP_DAYS} WHERE ${ofVariant(sql, scope, variant)} AND ${dayNamed(sql, days)})`;

/**
 * A breakdown's rows: names with value, visitors (and last_seen for events), ranked and cut as
 * breakdown.ts ranks them; every row carries `still_built`, and one row with a null name stands
 * for an empty answer.
 */
export function rolledBreakdown(sql: DuckDbSql, scope: ReportScope, dim: BreakdownDim, days: SealedDays, limit: number): string {
  const rows = rowsOutsideRollups(sql, scope, days, ['ts', 'visitor_key', ...(dim === 'events' ? CANONICAL_EVENT_COLUMNS : [...CANONICAL_COLUMNS, 'unique', BREAKDOWN_COLUMNS[dim]])]);
  const raw =
    dim === 'events'
      ? `SELECT event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
         FROM ${rows} AS e WHERE ${CANONICAL_EVENTS} GROUP BY event, ${DAY}`
      : `SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors, NULL::BIGINT AS last_seen
         FROM (SELECT *, ${labelExpression(sql, dim)} AS name FROM ${rows} AS e
               WHERE ${CANONICAL}${entryOnly(dim)})
         GROUP BY coalesce(name, ''), ${DAY}`;
  const keep = dim === 'events' || keepsEmptyLabels(dim) ? '' : `WHERE name <> ''`;
  return `
    WITH answer AS (
      SELECT name, sum(value) AS value, sum(visitors) AS visitors, max(last_seen) AS last_seen
      FROM (${rolledRows(sql, scope, dim, days)} UNION ALL ${raw}) ${keep}
      GROUP BY name ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}
    )
    SELECT c.still_built, a.name, a.value, a.visitors, a.last_seen FROM ${stillBuilt(sql, scope, days, variantOf(scope.filters))} AS c LEFT JOIN answer AS a ON true
    ORDER BY a.value DESC, a.name ASC`;
}

/**
 * Several label breakdowns of one scope in one statement (the summary's tech lists), as
 * tech-lists.ts answers them: rows of (`list`, `name`, `value`, `visitors`, `last_seen`) for
 * every name, which techListRows ranks and cuts; the raw rows are read once for all lists. With
 * `events`, also the events breakdown (`list` n) and the event totals (`list` n + 1), from one
 * read of the raw events. Carries `still_built`.
 */
export function rolledTechLists(sql: DuckDbSql, scope: ReportScope, dims: readonly LabelDim[], days: SealedDays, events = false): string {
  const names = events ? [...dims, 'events', 'event_totals'] : [...dims];
  const labels = dims.map((dim, i) => `${labelExpression(sql, dim)} AS l${i}`).join(', ');
  const list = `CASE dim ${names.map((dim, i) => `WHEN ${sql.bind(dim)} THEN ${i}`).join(' ')} END`;
  const rolled = `SELECT ${list} AS list, name, value, visitors, last_seen FROM ${ROLLUP_LABELS}
    WHERE ${ofVariant(sql, scope, variantOf(scope.filters))} AND dim IN (${names.map((dim) => sql.bind(dim)).join(', ')}) AND ${dayNamed(sql, days)}`;
  const raw = dims.map((_, i) => `SELECT ${i}, coalesce(l${i}, ''), count(*), ${VISITORS}, NULL::BIGINT FROM raw GROUP BY coalesce(l${i}, ''), ${DAY}`);
  const n = dims.length;
  const rawEvents = events
    ? [
        `SELECT ${n}, event, count(*), count(DISTINCT visitor_key), max(ts) FROM raw_events GROUP BY event, ${DAY}`,
        `SELECT ${n + 1}, '', count(*), count(DISTINCT visitor_key), NULL::BIGINT FROM raw_events GROUP BY ${DAY}`,
      ]
    : [];
  const rows = rowsOutsideRollups(sql, scope, days, ['ts', 'visitor_key', 'unique', ...CANONICAL_EVENT_COLUMNS, ...dims.map((dim) => BREAKDOWN_COLUMNS[dim])]);
  return `
    WITH raw AS MATERIALIZED (SELECT ts, visitor_key, "unique", ${labels} FROM ${rows} AS e WHERE ${CANONICAL}),
    ${events ? `raw_events AS MATERIALIZED (SELECT ts, visitor_key, event FROM ${rows} AS e WHERE ${CANONICAL_EVENTS}),` : ''}
    answer AS (
      SELECT list, name, sum(value) AS value, sum(visitors) AS visitors, max(last_seen) AS last_seen
      FROM (${[rolled, ...raw, ...rawEvents].join(' UNION ALL ')}) GROUP BY list, name
    )
    SELECT c.still_built, a.* FROM ${stillBuilt(sql, scope, days, variantOf(scope.filters))} AS c LEFT JOIN answer AS a ON true`;
}

/** The named events and their visitors over the range, with `still_built`. */
export function rolledEventTotals(sql: DuckDbSql, scope: ReportScope, days: SealedDays): string {
  return `
    SELECT c.still_built, t.count, t.visitors FROM ${stillBuilt(sql, scope, days, variantOf(scope.filters))} AS c CROSS JOIN (
      SELECT coalesce(sum(value), 0) AS count, coalesce(sum(visitors), 0) AS visitors FROM (
        ${rolledRows(sql, scope, 'event_totals', days)}
        UNION ALL
        SELECT '' AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, NULL AS last_seen
        FROM ${rowsOutsideRollups(sql, scope, days, ['ts', 'visitor_key', ...CANONICAL_EVENT_COLUMNS])} AS e WHERE ${CANONICAL_EVENTS} GROUP BY ${DAY})) AS t`;
}
