/**
 * How DuckDB statements read the store's daily rollups (adapters/duckdb/rollups.ts):
 * the named days' rollups of the sealed whole UTC days (and, for stored pages,
 * the days the range only cuts into), plus the raw rows of every other part of
 * the range, grouped by UTC day. Visitor hashes never repeat across UTC days,
 * so per-day distinct counts add up exactly; each query file's rolled
 * statement equals its row statement over the rows.
 *
 * The store names the days reports/plan.ts lets the rollups answer; every
 * other day of the range is read from rows, as plain ts ranges the scan can
 * prune. A batch may remove a named day's rollup before the statement runs:
 * each answer therefore carries `still_built`, how many of the named days
 * still have their marker in the statement's own snapshot (a build writes
 * marker and labels in one transaction, a batch deletes both in one), and the
 * store asks again when it is fewer.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import type { ReportScope, SiteRef } from '#ports/report-store.ts';
import { SUBJECT_DIM, variantOf } from '../../plan.ts';
import { rowRanges, type SealedDays } from '../sealed-days.ts';
import { filterSql, sumsByName } from '../text.ts';
import type { DuckDbSql } from './duckdb.ts';
import type { SubjectRows } from '../../plan.ts';

/**
 * Written by the DuckDB store (adapters/duckdb/rollups.ts); the names carry the rules' version.
 * Labels, slots and days are kept per variant: the site's rows (''), or the rows one filter
 * clause keeps (plan.ts rollupVariant).
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

/** The rollup rows of the site's variant (plan.ts rollupVariant). */
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
  return `day IN (SELECT unnest(${sql.list(named)}::INTEGER[]))`;
}

/** The named days' labels of one list (`dim`) of the scope's variant. */
export function rolledLabels(sql: DuckDbSql, scope: ReportScope, dim: string, days: SealedDays): string {
  return `SELECT name, value, visitors, last_seen FROM ${ROLLUP_LABELS}
    WHERE ${ofVariant(sql, scope, variantOf(scope.filters))} AND dim = ${sql.bind(dim)} AND ${dayNamed(sql, days)}`;
}

/** How many named days still have their rollup (of the variant) in this statement's snapshot. */
export const stillBuilt = (sql: DuckDbSql, scope: SiteRef, days: SealedDays, variant: string) =>
  `(SELECT count(*) AS still_built FROM ${ROLLUP_DAYS} WHERE ${ofVariant(sql, scope, variant)} AND ${dayNamed(sql, days)})`;

/**
 * A report's own subject over the scope (plan.ts SubjectRows): per name, `value` and `visitors`
 * summed over the named days' rollups and the rows of the rest (text.ts sumsByName, cut to `top`
 * and so ordered when given), each row with `still_built`. Joined on true, so an answer without
 * sums still carries `still_built` (in a row whose name is NULL).
 */
export function rolledSubject(sql: DuckDbSql, scope: SiteRef & { from: number; to: number }, days: SealedDays, subject: SubjectRows<DuckDbSql>, top?: string): string {
  const rest = rowRanges(scope, days);
  const raw = rest.length === 0 ? '' : `UNION ALL SELECT name, value, visitors FROM (${subject.rows(sql, scope, rest)})`;
  const rolled = `SELECT name, value, visitors FROM ${ROLLUP_LABELS} WHERE ${ofVariant(sql, scope, subject.variant)} AND dim = '${SUBJECT_DIM}' AND ${dayNamed(sql, days)} ${raw}`;
  return `SELECT c.still_built, t.name, t.value, t.visitors FROM ${stillBuilt(sql, scope, days, subject.variant)} AS c LEFT JOIN (${sumsByName(rolled, top)}) AS t ON true
    ${top === undefined ? '' : 'ORDER BY t.value DESC, t.name ASC'}`;
}
