/**
 * How ClickHouse statements read the store's daily rollups
 * (adapters/clickhouse/rollups.ts): labels and slots of the builds of the
 * scope's variant (reports/plan.ts rollupVariant) answer whole UTC days, stored pages any
 * part of a day, and every other part of the range (the partial ends, days
 * without a usable build) is read from rows, grouped by UTC day and summed.
 * Visitor hashes never repeat across UTC days, so per-day distinct counts
 * add up exactly; each query file's rolled statement equals its row
 * statement over the rows.
 *
 * The store names the builds it found usable. A batch may mark one of
 * those days stale before the statements read: the store reads the site's
 * stale marks with them (`staleMarks`, one statement for every read of a
 * report) and asks again when a mark is as new as a named build
 * (`staleBuilds`).
 *
 * Most reads come in two statements (`RolledPart`): the sealed one reads
 * only the named builds (their rollups, and their days' rows less the copies
 * they listed), so its answer is a function of the builds named and can be
 * kept; the open one reads the rest. Their rows are partial sums the store
 * adds up (rolled-merge.ts). A part with nothing to read is null.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import { BREAKDOWN_COLUMNS, type BreakdownDim } from '#domain/reports/query.ts';
import type { ReportScope, SiteRef } from '#ports/report-store.ts';
import { rolledDays, SUBJECT_DIM } from '../../plan.ts';
import { dayRanges, rowRanges, type SealedDays } from '../sealed-days.ts';
import { filterColumns, filterSql, labelExpression, sumsByName, type PageviewDim } from '../text.ts';
import { inRanges } from '#domain/rows/flags/clickhouse-sql.ts';
import { UNHASHED, type ClickHouseSql } from './clickhouse.ts';
import { canonicalColumns } from './read-time.ts';
import type { SubjectRows } from '../../plan.ts';

/** The rollup tables a read names, quoted (adapters/clickhouse/rollups.ts). */
export interface RolledTables {
  labels: string;
  slots: string;
  pages: string;
  copies: string;
  stale: string;
}

/** Days (ascending) and the stamp of the build named for each. */
interface NamedBuilds {
  built: readonly number[];
  builtAt: readonly number[];
}

/**
 * Sealed days of the range (the days it only cuts into too), for each usable day (`built`,
 * ascending) its build's stamp, and the builds' variant (plan.ts rollupVariant). The days
 * whose rows read plain (`plain`, ascending) are those whose usable build of the site's own rows
 * listed their copies (adapters/clickhouse/rollups.ts), `plainAt` its stamp: of any variant's read.
 */
export interface RolledDays extends SealedDays, NamedBuilds {
  plain: readonly number[];
  plainAt: readonly number[];
  variant: string;
}

/** What a statement reads: `sealed` only the named builds (rollups, and their days' rows read plain), `open` every other part, `whole` both. */
export type RolledPart = 'sealed' | 'open' | 'whole';

export const readsSealed = (part: RolledPart) => part !== 'open';
export const readsOpen = (part: RolledPart) => part !== 'sealed';

/** The builds of `days` (days and stamps) kept by `keep`. */
function namedWhere(days: readonly number[], stamps: readonly number[], keep: (day: number) => boolean): NamedBuilds {
  const at = days.map((d, i) => [d, stamps[i] as number] as const).filter(([d]) => keep(d));
  return { built: at.map(([d]) => d), builtAt: at.map(([, b]) => b) };
}

/** The named builds of only the days `keep` (some of `days.built`, ascending). */
export function onlyDays(days: RolledDays, keep: readonly number[]): RolledDays {
  const kept = new Set(keep);
  return { ...days, ...namedWhere(days.built, days.builtAt, (d) => kept.has(d)) };
}

export const DAY = `intDiv("ts", ${DAY_MS})`;

/**
 * Each pageview's labels of some dimensions as an array to ARRAY JOIN: a tuple per dimension of
 * its `key`, its label, and whether the dimension counts the row (entry_pages: the unique flag).
 */
export function labelTuples(sql: ClickHouseSql, dims: readonly PageviewDim[], key: (dim: PageviewDim, i: number) => string): string {
  const tuples = dims.map(
    (dim, i) => `tuple(${key(dim, i)}, CAST(${labelExpression(sql, dim)} AS Nullable(String)), ${dim === 'entry_pages' ? 'coalesce("unique", false)' : 'true'})`,
  );
  return `[${tuples.join(', ')}]`;
}

/** The named builds' labels of some dimensions: `list` is the dimension's index. */
function rolledLabels(sql: ClickHouseSql, tables: RolledTables, scope: ReportScope, dims: readonly string[], days: RolledDays): string {
  if (days.built.length === 0) return '';
  const list = `indexOf(${sql.bind(dims, 'Array(String)')}, "dim") - 1`;
  return `
    SELECT toUInt32(${list}) AS "list", "name", "value", "visitors", "last_seen" FROM ${tables.labels}
    WHERE ${ofNamedVariantBuilds(sql, scope, days)} AND "dim" IN ${sql.bind(dims, 'Array(String)')}
    UNION ALL`;
}

/** A rollup table's rows of the site's named days, each of the build named for its day. */
export function ofNamedBuilds(sql: ClickHouseSql, site: SiteRef, days: NamedBuilds): string {
  const named = sql.bind(days.built, 'Array(Int32)');
  return `"site" = ${sql.value(site.site)} AND "registration" = ${sql.value(site.registration)}
      AND "day" IN ${named} AND "built_at" = transform("day", ${named}, ${sql.bind(days.builtAt, 'Array(Int64)')}, toInt64(-1))`;
}

/** A labels or slots table's rows of the site's named builds, which are of one variant. */
export const ofNamedVariantBuilds = (sql: ClickHouseSql, site: SiteRef, days: RolledDays) => `${ofNamedBuilds(sql, site, days)} AND "variant" = ${sql.value(days.variant)}`;

/** The site's newest stale mark of each day it has any (`day`, `at`): the same statement for every read of the site, so a report sends it once. */
export const staleMarks = (sql: ClickHouseSql, tables: RolledTables, site: SiteRef) =>
  `SELECT "day", max("at") AS "at" FROM ${tables.stale}
   WHERE "site" = ${sql.value(site.site)} AND "registration" = ${sql.value(site.registration)} GROUP BY "day"`;

/**
 * How many named builds a stale mark (`marks`: day → newest mark) is as new as: of the day itself,
 * and with `nextDay` (pages, which the next day's appends change) of the day after too.
 */
export function staleBuilds(days: RolledDays, marks: ReadonlyMap<number, number>, nextDay: boolean): number {
  const markedSince = (day: number, builtAt: number) => (marks.get(day) ?? -Infinity) >= builtAt;
  const stale = (named: readonly number[], stamps: readonly number[]) =>
    named.filter((day, i) => {
      const builtAt = stamps[i] as number;
      return markedSince(day, builtAt) || (nextDay && markedSince(day + 1, builtAt));
    }).length;
  // The builds whose copies a plain read leaves out are named too.
  return stale(days.built, days.builtAt) + stale(days.plain, days.plainAt);
}

/**
 * The canonical rows of some kinds in the parts of the scope the rollups leave (all but the
 * `answered` named days), as one derived table with `ts` and `columns` (with `kind` among them
 * to tell several apart), and those parts' ranges (ascending). The other named days whose
 * builds listed their copies are read as stored, less those copies: no copy window, so no day
 * before them is read. Every other part goes through the dialect's canonicalOf. `part` says
 * which of the two it reads.
 */
export function rowsOutside(
  sql: ClickHouseSql,
  tables: RolledTables,
  scope: SiteRef & { from: number; to: number },
  days: RolledDays,
  answered: readonly number[],
  kinds: readonly ('pageview' | 'event')[],
  columns: readonly string[],
  part: RolledPart,
): { rows: string | null; ranges: [number, number][] } {
  const skip = new Set(answered);
  const plain = namedWhere(days.plain, days.plainAt, (d) => !skip.has(d));
  const windowed = rowRanges(scope, { ...days, built: [...answered, ...plain.built].sort((a, b) => a - b) });
  const plainRanges = dayRanges(plain.built, scope);
  const windowedRows = windowed.length === 0 || !readsOpen(part) ? null : sql.canonicalOf(kinds, [scope], windowed, columns);
  let plainRows: string | null = null;
  if (plainRanges.length > 0 && readsSealed(part)) {
    const wanted = canonicalColumns(columns);
    const within = inRanges('"ts"', plainRanges);
    const kindIs = `"kind" IN ${sql.bind(kinds, 'Array(String)')}`;
    plainRows = `(SELECT "ts", ${wanted.join(', ')} FROM ${sql.table}
      WHERE ${kindIs} AND ${sql.sites([scope])} AND (${within})
        AND ("kind", "id", "ts") NOT IN (SELECT "kind", "id", "ts" FROM ${tables.copies} WHERE ${ofNamedBuilds(sql, scope, plain)} AND ${kindIs}))`;
  }
  const rows = windowedRows && plainRows ? `(SELECT * FROM ${windowedRows} AS w UNION ALL SELECT * FROM ${plainRows} AS p)` : (windowedRows ?? plainRows);
  return { rows, ranges: rowRanges(scope, { ...days, built: answered }) };
}

/**
 * Lists of one scope from the rollups and the rows: rows of (`list`, `name`, `value`, `visitors`,
 * `last_seen`) per name, summed over days. `lists` names each list in order: pageview dimensions,
 * `events` (the events breakdown) and `event_totals` (the named events, one name ''); `list` is
 * the index. The rows of both kinds are read at once: each canonical row becomes a row per list of
 * its kind. A scope whose filters no variant answers reads every list from its rows (those of the
 * named days read plain). `part` says which reads it makes.
 */
export function rolledLists(
  sql: ClickHouseSql,
  tables: RolledTables,
  scope: ReportScope,
  lists: readonly (BreakdownDim | 'event_totals')[],
  days: RolledDays,
  part: RolledPart,
): string | null {
  // A label keeps no row's other labels: only builds of the scope's variant answer its whole days.
  const answered = rolledDays('labels', days.built, scope, days.variant);
  const pageDims = lists.filter((d): d is PageviewDim => d !== 'events' && d !== 'event_totals');
  const eventLists = (['events', 'event_totals'] as const).filter((d) => lists.includes(d));
  // Per kind: its lists as an array of (list, name, whether the row counts), and its columns.
  const pageTuples = labelTuples(sql, pageDims, (dim) => `toUInt32(${lists.indexOf(dim)})`);
  const eventTuples = `[${eventLists.map((d) => `tuple(toUInt32(${lists.indexOf(d)}), CAST(${d === 'events' ? '"event"' : "''"} AS Nullable(String)), coalesce("event", '') <> '')`).join(', ')}]`;
  const kinds = [...(pageDims.length > 0 ? (['pageview'] as const) : []), ...(eventLists.length > 0 ? (['event'] as const) : [])];
  const both = kinds.length === 2;
  // What a row of `kind` takes, and of the other kind `otherwise`: the kind is a column only when both are read.
  const when = (kind: (typeof kinds)[number], expression: string, otherwise: string) => (both ? `if("kind" = '${kind}', ${expression}, ${otherwise})` : kinds[0] === kind ? expression : otherwise);
  const columns = [
    ...new Set([
      ...(both ? ['kind'] : []),
      'visitor',
      'bot',
      ...(pageDims.length > 0 ? ['unique', ...pageDims.map((d) => BREAKDOWN_COLUMNS[d])] : []),
      ...(eventLists.length > 0 ? ['event'] : []),
      ...filterColumns(scope.filters),
    ]),
  ];
  const { rows } = kinds.length === 0 ? { rows: null } : rowsOutside(sql, tables, scope, days, answered, kinds, columns, part);
  const labels = readsSealed(part) ? rolledLabels(sql, tables, scope, lists, onlyDays(days, answered)) : '';
  if (!rows && labels === '') return null;
  // A pageview without a visitor hash counts its unique flag; an event's last ts is the list's last_seen.
  const raws = rows
    ? [
        `SELECT d.1 AS "list", coalesce(d.2, '') AS "name", count() AS "value", count(DISTINCT "visitor") + ${when('pageview', UNHASHED, '0')} AS "visitors",
           ${when('event', 'toNullable(max("ts"))', 'CAST(NULL AS Nullable(Int64))')} AS "last_seen"
         FROM ${rows} AS e ARRAY JOIN ${when('pageview', pageTuples, eventTuples)} AS d
         WHERE ${sql.notBot}${filterSql(sql, scope.filters)} AND d.3 GROUP BY ${both ? '"kind", ' : ''}"list", "name", ${DAY}`,
      ]
    : [];
  const none = `SELECT toUInt32(0) AS "list", '' AS "name", toUInt64(0) AS "value", toUInt64(0) AS "visitors", CAST(NULL AS Nullable(Int64)) AS "last_seen" WHERE false`;
  const sources = `${labels} ${raws.length === 0 ? none : raws.join(' UNION ALL ')}`;
  return `
    SELECT "list", "name", sum("value") AS "value", sum("visitors") AS "visitors", max("last_seen") AS "last_seen"
    FROM (${sources}) AS s
    GROUP BY "list", "name"`;
}

/**
 * A report's own subject over the scope (plan.ts SubjectRows), one whole statement: per name,
 * `value` and `visitors` summed over the named builds' rollups of whole days and the rows of the
 * rest (text.ts sumsByName, cut to `top` when given).
 */
export function rolledSubject(
  sql: ClickHouseSql,
  tables: RolledTables,
  scope: SiteRef & { from: number; to: number },
  days: RolledDays,
  subject: SubjectRows<ClickHouseSql>,
  top?: string,
): string {
  const named = onlyDays(days, rolledDays('labels', days.built, { ...scope, filters: [], variant: subject.variant }, days.variant));
  const rest = rowRanges(scope, named);
  const parts = [
    ...(named.built.length > 0 ? [`SELECT "name", "value", "visitors" FROM ${tables.labels} WHERE ${ofNamedVariantBuilds(sql, scope, named)} AND "dim" = '${SUBJECT_DIM}'`] : []),
    ...(rest.length > 0 ? [`SELECT toString("name") AS "name", toUInt64("value") AS "value", toUInt64("visitors") AS "visitors" FROM (${subject.rows(sql, scope, rest)}) AS r`] : []),
  ];
  return sumsByName(parts.length > 0 ? parts.join(' UNION ALL ') : `SELECT '' AS "name", toUInt64(0) AS "value", toUInt64(0) AS "visitors" WHERE false`, top);
}
