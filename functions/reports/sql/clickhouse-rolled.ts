/**
 * ClickHouse only: breakdowns, tech lists and event totals (unfiltered, or
 * under one `dim:value` clause: sealed-days.ts rollupVariant) from the daily rollups (adapters/clickhouse/rollups.ts) of the sealed whole UTC
 * days inside the range, plus the rows of every other part of it (the
 * partial ends, days without a usable build) grouped by UTC day, summed per
 * name. Visitor hashes never repeat across UTC days, so per-day distinct
 * counts add up exactly; the result equals breakdown.ts's over the rows.
 *
 * The caller names the builds it found usable. A batch may mark one of
 * those days stale before the statements read: the caller reads the site's
 * stale marks with them (`staleMarks`, one statement for every read of a
 * report) and asks again when a mark is as new as a named build
 * (`staleBuilds`).
 *
 * Most reads come in two statements (`RolledPart`): the sealed one reads
 * only the named builds (their rollups, and their days' rows less the copies
 * they listed), so its answer is a function of the builds named and can be
 * kept; the open one reads the rest. Their rows are partial sums the caller
 * adds up (rolled-merge.ts). A part with nothing to read is null.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import { BREAKDOWN_COLUMNS } from '#domain/reports/query.ts';
import type { LabelDim, ReportScope, SiteRef } from '#ports/report-store.ts';
import type { PageviewDim } from './breakdown.ts';
import { inRanges, UNHASHED, type ClickHouseSql } from './dialects/clickhouse.ts';
import { canonicalColumns } from './dialects/read-time.ts';
import { dayRanges, rawBucket, rollupVariant, rowRanges, slotBuckets, trafficDays, wholeDays, type SealedDays } from './sealed-days.ts';
import { clickhouseEngagedPages } from './engaged-pages.ts';
import { thresholdCounts } from './retention.ts';
import { bucketExpression, filterColumns, filterSql, keepsEmptyLabels, labelExpression } from './text.ts';

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
 * ascending) its build's stamp, and the builds' variant (sealed-days.ts rollupVariant). The days
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

const readsSealed = (part: RolledPart) => part !== 'open';
const readsOpen = (part: RolledPart) => part !== 'sealed';

/** Whether the named builds' labels and slots count the scope's rows: they are of its filters' variant. */
const countsScope = (days: RolledDays, filters: readonly FilterClause[]) => rollupVariant(filters) === days.variant;

/** The builds of `days` (days and stamps) kept by `keep`. */
function namedWhere(days: readonly number[], stamps: readonly number[], keep: (day: number) => boolean): NamedBuilds {
  const at = days.map((d, i) => [d, stamps[i] as number] as const).filter(([d]) => keep(d));
  return { built: at.map(([d]) => d), builtAt: at.map(([, b]) => b) };
}

/** The named builds of only the days `keep` (some of `days.built`, ascending). */
function onlyDays(days: RolledDays, keep: readonly number[]): RolledDays {
  const kept = new Set(keep);
  return { ...days, ...namedWhere(days.built, days.builtAt, (d) => kept.has(d)) };
}

const DAY = `intDiv("ts", ${DAY_MS})`;

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
function ofNamedBuilds(sql: ClickHouseSql, site: SiteRef, days: NamedBuilds): string {
  const named = sql.bind(days.built, 'Array(Int32)');
  return `"site" = ${sql.value(site.site)} AND "registration" = ${sql.value(site.registration)}
      AND "day" IN ${named} AND "built_at" = transform("day", ${named}, ${sql.bind(days.builtAt, 'Array(Int64)')}, toInt64(-1))`;
}

/** A labels or slots table's rows of the site's named builds, which are of one variant. */
const ofNamedVariantBuilds = (sql: ClickHouseSql, site: SiteRef, days: RolledDays) => `${ofNamedBuilds(sql, site, days)} AND "variant" = ${sql.value(days.variant)}`;

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
function rowsOutside(
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
function rolledLists(
  sql: ClickHouseSql,
  tables: RolledTables,
  scope: ReportScope,
  lists: readonly (BreakdownDim | 'event_totals')[],
  days: RolledDays,
  part: RolledPart,
): string | null {
  // A label keeps no row's other labels: only builds of the scope's variant answer its whole days.
  const answered = countsScope(days, scope.filters) ? wholeDays(days.built, scope) : [];
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

/** A breakdown's names with value, visitors (and last_seen for events), ranked and cut as breakdown.ts ranks them, from one statement. */
export function clickhouseRolledBreakdown(sql: ClickHouseSql, tables: RolledTables, scope: ReportScope, dim: BreakdownDim, days: RolledDays, limit: number): string | null {
  const keep = dim === 'events' || keepsEmptyLabels(dim) ? '' : `WHERE "name" <> ''`;
  const lists = rolledLists(sql, tables, scope, [dim], days, 'whole');
  return lists && `SELECT * FROM (${lists}) AS l ${keep} ORDER BY "value" DESC, "name" ASC LIMIT ${sql.limit(limit)}`;
}

/** Several label breakdowns of one scope (the summary's tech lists): rows of every name of each list, partial sums of `part`. */
export const clickhouseRolledTechLists = (sql: ClickHouseSql, tables: RolledTables, scope: ReportScope, dims: readonly LabelDim[], days: RolledDays, part: RolledPart) =>
  rolledLists(sql, tables, scope, dims, days, part);

/**
 * The summary's lists in one statement: the tech lists (`list` 0..n-1), the events breakdown
 * (`list` n) and the event totals (`list` n + 1), every name unranked, partial sums of `part`.
 */
export const clickhouseRolledSummaryLists = (sql: ClickHouseSql, tables: RolledTables, scope: ReportScope, dims: readonly LabelDim[], days: RolledDays, part: RolledPart) =>
  rolledLists(sql, tables, scope, [...dims, 'events', 'event_totals'], days, part);

/** The named events and their visitors over the range (one row, `name` ''), partial sums of `part`. */
export const clickhouseRolledEventTotals = (sql: ClickHouseSql, tables: RolledTables, scope: ReportScope, days: RolledDays, part: RolledPart) =>
  rolledLists(sql, tables, scope, ['event_totals'], days, part);

/**
 * The engaged pages of the range matching the filters (engaged-pages.ts) as `engaged`: the named
 * builds' pages (`pages` of the rollup tables, which keep the columns filters compare; the sealed
 * part) and those of every other part of the range read from rows (the open part).
 */
function engagedCte(
  sql: ClickHouseSql,
  tables: RolledTables,
  scope: SiteRef & { from: number; to: number },
  days: RolledDays,
  filters: readonly FilterClause[],
  part: RolledPart,
): string | null {
  const ranges = rowRanges(scope, days);
  const raw = ranges.length === 0 || !readsOpen(part) ? null : clickhouseEngagedPages(sql, [scope], ranges, filters);
  // The named days may be ones the range only cuts into: their pages are bounded by ts.
  const rolled =
    days.built.length === 0 || !readsSealed(part)
      ? null
      : `SELECT "site", "ts", "total_duration", "scroll" FROM ${tables.pages}
         WHERE ${ofNamedBuilds(sql, scope, days)} AND "ts" >= ${sql.int(scope.from)} AND "ts" < ${sql.int(scope.to)}${filterSql(sql, filters)}`;
  const parts = [rolled, raw && `SELECT "site", "ts", "total_duration", "scroll" FROM page`].filter((p): p is string => p !== null);
  if (parts.length === 0) return null;
  return `${raw ? `${raw},` : ''}
    engaged AS (${parts.join(' UNION ALL ')})`;
}

/** A rolled traffic read: one site's buckets (`bounds`, its range from the first to the last), the named days, the filters and the part. */
export interface TrafficRead {
  site: SiteRef;
  bounds: readonly number[];
  days: RolledDays;
  filters: readonly FilterClause[];
  part: RolledPart;
}

/** One site's range from the first of its buckets' bounds to the last. */
export const rangeOf = (site: SiteRef, bounds: readonly number[]) => ({ ...site, from: bounds[0] as number, to: bounds[bounds.length - 1] as number });

/** Retention's counts (retention.ts) over the engaged pages `part` reads. */
export function clickhouseRolledRetention(
  sql: ClickHouseSql,
  tables: RolledTables,
  scope: ReportScope,
  days: RolledDays,
  durations: readonly number[],
  scrolls: readonly number[],
  part: RolledPart,
): string | null {
  const engaged = engagedCte(sql, tables, scope, days, scope.filters, part);
  return engaged && `WITH ${engaged} SELECT ${thresholdCounts(sql, durations, scrolls)} FROM engaged`;
}

/**
 * The traffic's engagement (traffic.ts) in parts to add up (rolled-merge.ts engagementOfParts): per
 * site and bucket of `bounds`, over the engaged pages `part` reads, each qualifying total (at least
 * 5 s) with how many pages have it (`totals`), and the scrolls' sum and count.
 */
export function clickhouseRolledEngagement(sql: ClickHouseSql, tables: RolledTables, { site, bounds, days, filters, part }: TrafficRead): string | null {
  const engaged = engagedCte(sql, tables, rangeOf(site, bounds), days, filters, part);
  return (
    engaged &&
    `WITH ${engaged}
    SELECT "site", toUInt32("bucket") AS "bucket", groupArrayIf(tuple(assumeNotNull("total_duration"), "pages"), "total_duration" >= 5) AS "totals",
           sum("scrolls") AS "scrolls", sum("scrolled") AS "scrolled"
    FROM (
      SELECT "site", ${bucketExpression(sql, bounds)} AS "bucket", "total_duration", count() AS "pages",
             toFloat64(coalesce(sum("scroll"), 0)) AS "scrolls", count("scroll") AS "scrolled"
      FROM engaged GROUP BY "site", "bucket", "total_duration"
    ) AS d GROUP BY "site", "bucket"`
  );
}

/**
 * Raw rows' parts 'bucket' and 'total' from one read of them (a second SELECT naming them would
 * read them again): per bucket and UTC day the distinct visitors' state, merged per UTC day for
 * the total (visitor hashes do not repeat across UTC days, so days add up).
 */
function rawBucketsAndTotal(raw: string, bucket: string): string {
  return `SELECT x.1 AS "part", x.2 AS "bucket", x.3 AS "pageviews", x.4 AS "visitors" FROM (
      SELECT groupArray(tuple('bucket', "bucket", "pageviews", finalizeAggregation("distinct") + "unhashed")) AS "per",
             sum("pageviews") AS "day_pageviews", uniqExactMerge("distinct") + sum("unhashed") AS "day_visitors"
      FROM (
        SELECT toUInt32(${bucket}) AS "bucket", ${DAY} AS "utc_day", count() AS "pageviews", uniqExactState("visitor") AS "distinct",
               ${UNHASHED} AS "unhashed"
        FROM ${raw} AS r GROUP BY "bucket", "utc_day"
      ) AS d GROUP BY "utc_day"
    ) AS g
    ARRAY JOIN arrayPushBack("per", tuple('total', toUInt32(0), "day_pageviews", "day_visitors")) AS x`;
}

/**
 * One site's pageviews and visitors (traffic.ts) under the filters, from the slots of the named
 * days that can answer these buckets (of the filters' variant, whole days: sealed-days.ts trafficDays) and the
 * rows of the rest of the range: rows of `part` 'bucket' (when there is more than one) and
 * 'total', partial sums of `part`. Raw rows count visitors per UTC day, summed. A slot keeps no
 * row's labels: under filters no variant answers, the counts come from rows.
 */
export function clickhouseRolledCounts(sql: ClickHouseSql, tables: RolledTables, { site, bounds, days, filters, part }: TrafficRead): string | null {
  const range = rangeOf(site, bounds);
  const answered = countsScope(days, filters) ? trafficDays(wholeDays(days.built, range), bounds) : [];
  const slotDays = onlyDays(days, answered);
  const slots =
    slotDays.built.length === 0 || !readsSealed(part)
      ? null
      : `(SELECT "day" AS day, toUInt32("slot") AS slot, "pageviews", "firsts", "lasts", "unhashed" FROM ${tables.slots}
          WHERE ${ofNamedVariantBuilds(sql, site, slotDays)})`;
  const outside = rowsOutside(sql, tables, range, days, answered, ['pageview'], ['visitor', 'unique', 'bot', ...filterColumns(filters)], part);
  const ranges = outside.ranges;
  const raw = outside.rows && `(SELECT * FROM ${outside.rows} AS c WHERE ${sql.notBot}${filterSql(sql, filters)})`;
  const sources: string[] = [];
  if (slots) {
    // One read of the slots: each slot counts toward its bucket and the total.
    const total = `tuple('total', toUInt32(0), "pageviews", "firsts" + "unhashed")`;
    const slot = bounds.length > 2 ? slotBuckets(sql, bounds, slotDays) : null;
    const each = slot ? `[tuple('bucket', toUInt32(${slot.bucket}), "pageviews", if(${slot.fromDayStart}, "firsts", "lasts") + "unhashed"), ${total}]` : `[${total}]`;
    // The array is made below the projection, whose aliases name the slots' columns.
    sources.push(`SELECT x.1 AS "part", x.2 AS "bucket", x.3 AS "pageviews", x.4 AS "visitors" FROM (SELECT ${each} AS "per" FROM ${slots} AS s) AS a ARRAY JOIN "per" AS x`);
  }
  if (raw) sources.push(bounds.length > 2 ? rawBucketsAndTotal(raw, rawBucket(sql, bounds, ranges)) : `SELECT 'total' AS "part", toUInt32(0) AS "bucket", count() AS "pageviews", ${sql.visitors} AS "visitors" FROM ${raw} AS r GROUP BY ${DAY}`);
  if (sources.length === 0) return null;
  return `SELECT "part", if("part" = 'total', NULL, toNullable("bucket")) AS "bucket", sum("pageviews") AS "pageviews", sum("visitors") AS "visitors"
    FROM (${sources.join(' UNION ALL ')}) AS p GROUP BY "part", "bucket"`;
}
