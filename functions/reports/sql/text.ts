/**
 * What every report dialect writes the same way: literals, the bucket index,
 * filter conditions, breakdown labels, and the mapping of result values.
 * A dialect context (dialects/*.ts) says how a value enters its SQL (bound or
 * inlined) and how it spells a few functions; these builders take it.
 */
import { sqlInteger, sqlString } from '#domain/sql-literals.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { EVENT_DIM, FILTER_COLUMNS, isGoalClause, isVisitorClause, primaryLanguage, type FilterClause, type GoalClause, type LabelClause, type VisitorWindow } from '#domain/reports/filter.ts';
import { hasWildcard, likePattern } from '#domain/goals/goal.ts';
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { GoalMatch } from '#ports/goals.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { BREAKDOWN_COLUMNS, BREAKDOWN_DIMS, SCREEN_CLASSES, type BreakdownDim } from '#domain/reports/query.ts';

export interface SqlText {
  /** A string value: a bound parameter or a literal, whatever it holds. */
  value(value: string): string;
  /** An integer written into the text (bucket edges, timestamps of a dialect without parameters). */
  int(value: number): string;
  /** A LIMIT count. */
  limit(value: number): string;
  /** A finite number written into the text (thresholds). */
  number(value: number): string;
  /** A column of the dialect's event rows, quoted. */
  column(name: string): string;
  /** True when `needle` occurs in `haystack` (case-sensitive). */
  contains(haystack: string, needle: string): string;
  /** True when `haystack` matches the LIKE `pattern` (`%` any run, `_` one character, `\\` escapes). */
  like(haystack: string, pattern: string): string;
  /**
   * True when the row's visitor-day has a row matching `condition` (SQL over the stored rows) among
   * the sites' rows of `window` (ms, [from, to)): its visitor hash is one of theirs; with `without`,
   * when it has a hash and none of them. The dialects of later capabilities (DuckDB, ClickHouse).
   */
  convertedVisitors?(sites: readonly SiteRef[], condition: string, window: VisitorWindow, without?: boolean): string;
  /** A constant list of integers that rows index into (`list[i]`, from 1): bucket edges and offsets per day. */
  intList(values: readonly number[]): string;
  /**
   * The UTC day number of a ms timestamp, where the dialect buckets rows by day look-ups
   * (bucketExpression): one where a comparison tree costs every comparison on every row.
   */
  utcDay?(ts: string): string;
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

/**
 * The bucket index of `ts` (bucket i is [b_i, b_{i+1})) for rows inside the boundaries. Where
 * the dialect names a row's UTC day (ClickHouse, which evaluates every branch of a CASE tree),
 * a look-up by day; otherwise a balanced comparison tree (the others stop at the first match).
 */
export function bucketExpression(sql: SqlText, bounds: readonly number[]): string {
  return sql.utcDay ? dayLookupBucket(sql, sql.utcDay(sql.column('ts')), bounds) : bucketTree(sql, bounds, 0, bounds.length - 2);
}

/**
 * The day look-up's constant lists, per UTC day from `first`: the bucket holding the day's first
 * moment in range (`starts`), and per step k the day's k-th boundary (`steps[k]`; the day's end
 * when it holds fewer, which no row of it reaches). A row's bucket is its day's start plus the
 * steps at or before its ts.
 */
export function dayLookup(bounds: readonly number[]): { first: number; starts: number[]; steps: number[][] } {
  const from = bounds[0] as number;
  const to = bounds[bounds.length - 1] as number;
  const first = Math.floor(from / DAY_MS);
  const starts: number[] = [];
  const cuts: number[][] = [];
  for (let d = first; d * DAY_MS < to; d++) {
    const start = Math.max(d * DAY_MS, from);
    starts.push(bucketAt(bounds, start));
    cuts.push(bounds.slice(1, -1).filter((b) => b > start && b < (d + 1) * DAY_MS));
  }
  const most = Math.max(0, ...cuts.map((c) => c.length));
  const steps = Array.from({ length: most }, (_, k) => cuts.map((c, i) => c[k] ?? (first + i + 1) * DAY_MS));
  return { first, starts, steps };
}

function dayLookupBucket(sql: SqlText, day: string, bounds: readonly number[]): string {
  const { first, starts, steps } = dayLookup(bounds);
  const at = `[${day} - ${sqlInteger(first - 1)}]`;
  const ts = sql.column('ts');
  return `(${sql.intList(starts)}${at}${steps.map((edge) => ` + CASE WHEN ${ts} >= ${sql.intList(edge)}${at} THEN 1 ELSE 0 END`).join('')})`;
}

/**
 * A balanced tree of comparisons over the sorted boundaries, for buckets lo..hi (rows known to
 * lie in them): log2(buckets) comparisons per row, where a range join would cost a join.
 */
export function bucketTree(sql: SqlText, bounds: readonly number[], lo: number, hi: number): string {
  if (lo >= hi) return String(lo);
  const mid = Math.floor((lo + hi + 1) / 2);
  return `(CASE WHEN ${sql.column('ts')} < ${sql.int(bounds[mid]!)} THEN ${bucketTree(sql, bounds, lo, mid - 1)} ELSE ${bucketTree(sql, bounds, mid, hi)} END)`;
}

/** The index of the bucket holding `ts` (bucket i is [b_i, b_{i+1})): bucketExpression's search, in JS. */
export function bucketAt(bounds: readonly number[], ts: number): number {
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    if (ts < (bounds[mid] as number)) hi = mid - 1;
    else lo = mid;
  }
  return lo;
}

/**
 * The rows a goal or a funnel step matches (domain/goals/goal.ts): canonical pageviews by path
 * (a LIKE where the match has wildcards) or custom events by name. Canonical and human are the
 * caller's conditions.
 */
export function goalCondition(sql: SqlText, goal: GoalMatch): string {
  if (goal.type === 'event') return `(${sql.column('kind')} = 'event' AND ${sql.column('event')} = ${sql.value(goal.match)})`;
  const path = sql.column('path');
  const test = hasWildcard(goal.match) ? sql.like(path, sql.value(likePattern(goal.match))) : `${path} = ${sql.value(goal.match)}`;
  return `(${sql.column('kind')} = 'pageview' AND ${test})`;
}

/** A goal clause's condition: the row's visitor-day converted on the goal within the read's range. */
function goalFilterSql(sql: SqlText, f: GoalClause): string {
  if (!f.goal || !f.window) throw new Error('a goal filter reached a store without its goal or range');
  if (!sql.convertedVisitors) throw new NotAvailableOnStoreError();
  return ` AND ${sql.convertedVisitors([f.goal], goalCondition(sql, f.goal), f.window)}`;
}

/**
 * An event clause's condition, as a goal's: the row's visitor-day did (`:`, `~`) or did not (`!`)
 * an event of that name within the read's range. Rows without a visitor hash (imports) are never
 * kept: nothing ties them to a visitor's events.
 */
function eventFilterSql(sql: SqlText, f: LabelClause): string {
  if (!f.window?.sites) throw new Error('an event filter reached a store without its sites or range');
  if (!sql.convertedVisitors) throw new NotAvailableOnStoreError();
  const named = labelSql(sql, { ...f, op: f.op === 'neq' ? 'eq' : f.op });
  return ` AND ${sql.convertedVisitors(f.window.sites, `${sql.column('kind')} = 'event'${named}`, f.window, f.op === 'neq')}`;
}

/** A label clause's ` AND …` condition on the row's own label ('' for none). */
function labelSql(sql: SqlText, f: LabelClause): string {
  const column = `coalesce(${sql.column(FILTER_COLUMNS[f.dim])}, '')`;
  const primary = primaryLanguage(f);
  if (primary !== null) {
    // Every tag of the language: `en` and `en-*`, whatever their case.
    const tag = `lower(${column})`;
    const test = `(${tag} = ${sql.value(primary)} OR ${sql.like(tag, sql.value(`${primary}-%`))})`;
    return f.op === 'eq' ? ` AND ${test}` : ` AND NOT ${test}`;
  }
  if (f.op === 'eq') return ` AND ${column} = ${sql.value(f.value)}`;
  if (f.op === 'neq') return ` AND ${column} <> ${sql.value(f.value)}`;
  return ` AND ${sql.contains(column, sql.value(f.value))}`;
}

/**
 * The filter clauses as ` AND …` conditions: a missing label is '' (so
 * `eq ''` matches it and `neq ''` keeps only present labels), `contains` a case-sensitive
 * substring test, and every string contains the empty one; `language:en` keeps every tag of the
 * language (filter.ts primaryLanguage); goal and event clauses keep the rows of the visitor-days
 * that converted or did the event. Clauses come validated from the domain: no value is refused here.
 */
export function filterSql(sql: SqlText, filters: readonly FilterClause[]): string {
  return filters
    .map((f) => {
      if (f.op === 'contains' && f.value === '') return '';
      if (isGoalClause(f)) return goalFilterSql(sql, f);
      return f.dim === EVENT_DIM ? eventFilterSql(sql, f) : labelSql(sql, f);
    })
    .join('');
}

/** The event columns the filters read (a visitor clause, the row's visitor). */
export const filterColumns = (filters: readonly FilterClause[]) => filters.map((f) => (isGoalClause(f) || isVisitorClause(f) ? 'visitor' : FILTER_COLUMNS[f.dim]));

/** Every breakdown but `events` and `exit_pages`: a label of canonical pageviews. */
export type PageviewDim = Exclude<BreakdownDim, 'events' | 'exit_pages'>;

/**
 * The breakdowns the daily rollups keep: all but `exit_pages`, whose visits' last pageviews no
 * label of one row knows; the rows answer it (exit-pages.ts).
 */
export type RolledDim = Exclude<BreakdownDim, 'exit_pages'>;
export const ROLLED_DIMS: readonly RolledDim[] = BREAKDOWN_DIMS.filter((d): d is RolledDim => d !== 'exit_pages');

/** The label of a pageview in a breakdown; screens are classes of screen_width (domain/reports/query.ts). */
export function labelExpression(sql: SqlText, dim: BreakdownDim): string {
  if (dim === 'screens') {
    const width = sql.column('screen_width');
    const cases = SCREEN_CLASSES.filter((c) => Number.isFinite(c.below))
      .map((c) => `WHEN ${width} < ${sql.int(c.below)} THEN ${sqlString(c.name)}`)
      .join(' ');
    const last = SCREEN_CLASSES[SCREEN_CLASSES.length - 1]!.name;
    return `CASE WHEN ${width} IS NULL OR ${width} <= 0 THEN NULL ${cases} ELSE ${sqlString(last)} END`;
  }
  return sql.column(BREAKDOWN_COLUMNS[dim]);
}

/** `entry_pages` counts only pageviews with the unique (entry) flag: the condition to add, else nothing. */
export const entryOnly = (dim: BreakdownDim) => (dim === 'entry_pages' ? ' AND coalesce("unique", false)' : '');

/** Pages and referrers keep empty labels (direct traffic); every other list omits them (spec part 4). */
export const keepsEmptyLabels = (dim: BreakdownDim) => dim === 'pages' || dim === 'referrers';

/** A count or sum from a result row (numbers, bigints or numeric strings); none is 0. */
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
/** An average or median from a result row; none stays null. */
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** A label from a result row; none is ''. */
export const label = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/**
 * Per name, the sums of per-day rows (`name`, `value`, `visitors`: a report's own subject's,
 * plan.ts SubjectRows); with `top` (a bound limit), ordered by value then name and cut.
 */
export const sumsByName = (rows: string, top?: string) =>
  `SELECT name, sum(value) AS value, sum(visitors) AS visitors FROM (${rows}) AS d GROUP BY name${top === undefined ? '' : ` ORDER BY value DESC, name ASC LIMIT ${top}`}`;
