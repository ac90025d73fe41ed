/**
 * The DuckDB dialect: the `events` view of duckdb-event-store.ts, whose rows
 * carry 64-bit keys of their id, visitor and original_id (`id_key`,
 * `visitor_key`, `parent_key`) and flags the writer sets (`replay`,
 * `visitor_first`, `parent_ts`). Reports compare and count those keys and
 * never hash a column themselves: the writer computes them. Values are bound
 * parameters, collected as the statement is built, so they never enter its text.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import type { FilterClause } from '#domain/reports/filter.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { FRESH_TABLE, MAIN_TABLE } from '#domain/rows/duckdb-tables.ts';
import { sqlIdentifier, sqlInteger } from '#domain/sql-literals.ts';
import { filterSql, sqlNumber, type SqlText } from '../text.ts';


/** Canonical human pageviews: non-bot pageviews that are not copies of an earlier row (the writer's `replay`). */
export const CANONICAL = `kind = 'pageview' AND NOT bot AND NOT replay`;
/** The columns CANONICAL reads. */
export const CANONICAL_COLUMNS = ['kind', 'bot', 'replay'];

/** Canonical named human custom events (the events breakdown and the event totals). */
export const CANONICAL_EVENTS = `kind = 'event' AND NOT bot AND NOT replay AND coalesce(event, '') <> ''`;
/** The columns CANONICAL_EVENTS reads. */
export const CANONICAL_EVENT_COLUMNS = [...CANONICAL_COLUMNS, 'event'];

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
export const UNIQUE_WITHOUT_HASH = 'count(*) FILTER (WHERE visitor_key IS NULL AND coalesce("unique", false))';
export const VISITORS = `count(DISTINCT visitor_key) + ${UNIQUE_WITHOUT_HASH}`;

/**
 * Makes a LIST value: the adapters pass @duckdb/node-api's `listValue`, so this module (shared
 * with the Lambda bundles, which leave the native module out) only imports its types.
 */
export type ListValueOf = (items: readonly DuckDBValue[]) => DuckDBValue;

export class DuckDbSql implements SqlText {
  readonly params: Record<string, DuckDBValue> = {};
  private n = 0;

  constructor(private readonly listOf: ListValueOf) {}

  bind(value: DuckDBValue): string {
    const name = `p${this.n++}`;
    this.params[name] = value;
    return `$${name}`;
  }

  value(value: string): string {
    return this.bind(value);
  }

  int(value: number): string {
    return sqlInteger(value);
  }

  limit(value: number): string {
    return this.bind(value);
  }

  number(value: number): string {
    return sqlNumber(value);
  }

  column(name: string): string {
    return sqlIdentifier(name);
  }

  contains(haystack: string, needle: string): string {
    return `contains(${haystack}, ${needle})`;
  }

  like(haystack: string, pattern: string): string {
    return `${haystack} LIKE ${pattern} ESCAPE '\\'`;
  }

  /** A semi-join on the visitor's integer key: the sites' matching rows of the range, with a hash, no bot's. */
  convertedVisitors(sites: readonly SiteRef[], condition: string, window: { from: number; to: number }, without = false): string {
    const where = `${this.sites(sites)} AND ts >= ${this.bind(window.from)} AND ts < ${this.bind(window.to)} AND NOT bot AND visitor_key IS NOT NULL AND ${condition}`;
    return `${without ? 'visitor_key IS NOT NULL AND visitor_key NOT IN' : 'visitor_key IN'} (SELECT visitor_key FROM (${this.rows(['visitor_key'], where)}))`;
  }

  /** Bound: a list literal in the text is built again for every row that indexes it (a 365-day overview's counts statement measured 22 ms with literals, 12 ms bound). */
  intList(values: readonly number[]): string {
    return `(${this.bind(this.listOf(values.map((v) => BigInt(sqlInteger(v)))))}::BIGINT[])`;
  }

  /** A LIST of numbers as one bound value (the named days of a rolled read). */
  list(values: readonly number[]): string {
    return this.bind(this.listOf([...values]));
  }

  /** Plain comparisons with constants, which the scan turns into zone-map filters (a subquery would not be). */
  private inList(column: string, values: readonly string[]): string {
    return values.length === 1 ? `${column} = ${this.bind(values[0]!)}` : `${column} IN (${values.map((v) => this.bind(v)).join(', ')})`;
  }

  /**
   * The rows of the sites' current registrations. A registration key belongs to
   * one hostname (domain/registration.ts), so the two lists pick exactly each
   * site's own rows; every other registration's rows are never counted.
   */
  sites(sites: readonly SiteRef[]): string {
    return sites.length === 0
      ? 'false'
      : `${this.inList('site', sites.map((s) => s.site))} AND ${this.inList('registration', sites.map((s) => s.registration))}`;
  }

  /**
   * The stored rows matching `where`, with only `columns`, from the two tables behind the
   * `events` view: binding every column of the view at each reference was most of the planning
   * of a statement with four such reads (11 of its 24 ms; 7 with the tables and columns named).
   */
  rows(columns: readonly string[], where: string): string {
    const list = columns.map((c) => sqlIdentifier(c)).join(', ');
    return `SELECT ${list} FROM ${MAIN_TABLE} WHERE ${where} UNION ALL SELECT ${list} FROM ${FRESH_TABLE} WHERE ${where}`;
  }

  /**
   * `rows` over each of `ranges` ([start, end) ms, bound here), one scan per range: each a
   * plain ts range the zone maps prune, where an OR of ranges would not be. No range reads nothing.
   */
  rowsInRanges(columns: readonly string[], ranges: readonly (readonly [number, number])[], where: (start: string, end: string) => string): string {
    if (ranges.length === 0) return `(${this.rows(columns, 'false')})`;
    return `(${ranges.map(([a, b]) => this.rows(columns, where(this.bind(a), this.bind(b)))).join(' UNION ALL ')})`;
  }

  /** Rows of `sites` in [from, to) that pass the filters. */
  scope(sites: readonly SiteRef[], from: number, to: number, filters: readonly FilterClause[]): string {
    return `${this.sites(sites)} AND ts >= ${this.bind(from)} AND ts < ${this.bind(to)}${filterSql(this, filters)}`;
  }
}
