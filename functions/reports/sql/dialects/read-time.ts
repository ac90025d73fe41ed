/**
 * What the dialects that decide copies when they read (Timestream,
 * ClickHouse) write the same way: numbers and identifiers as literals, and
 * the canonical rows (domain/rows/copies.ts: no row of the same site and
 * id, and so registration, at most COPY_WINDOW_MS before), read one window
 * before the range so the first rows' predecessors are seen.
 */
import { COPY_WINDOW_MS } from '#domain/rows/flags/flag-index.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { sqlIdentifier, sqlInteger } from '#domain/sql-literals.ts';
import { sqlLimit, sqlNumber, type SqlText } from '../text.ts';

/** The rows a scan reads: some kinds, of the sites' current registrations, from `from` (and before `to`). */
export interface ScanRange {
  kinds: readonly ('pageview' | 'event' | 'append')[];
  sites: readonly SiteRef[];
  /** Inclusive, Unix ms. */
  from: number;
  /** Exclusive, Unix ms; none for "since". */
  to?: number;
  /**
   * A condition on the stored row the scan keeps besides (ClickHouse; Timestream takes none): one the
   * rows of an id all meet or all fail (their content), so copies are decided among the kept rows alone.
   */
  also?: string;
}

/**
 * The dialects whose stores keep no writer flags and decide copies when they
 * read (Timestream, ClickHouse): their statements are the same text over
 * these, written once in each query file.
 */
export interface ReadTimeSql extends SqlText {
  /** Rows that are no bot's. */
  readonly notBot: string;
  /** Distinct daily visitor hashes; pageviews without one count their unique flag. */
  readonly visitors: string;
  /** The rows of a range as a derived table with `ts` and the named columns. */
  scan(range: ScanRange, columns: readonly string[]): string;
  /** The rows of one kind in [from, to) that are no copies (domain/rows/copies.ts), as a derived table. */
  canonical(kind: ScanRange['kinds'][number], sites: readonly SiteRef[], from: number, to: number, columns: readonly string[]): string;
  /** The same over disjoint ascending [from, to) ranges, read as one derived table. */
  canonicalIn(kind: ScanRange['kinds'][number], sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], columns: readonly string[], also?: string): string;
}

/** The columns after `ts` of canonicalIn's derived table, quoted, in its order: site, id, then the named ones. */
export const canonicalColumns = (columns: readonly string[]) => [...new Set(['site', 'id', ...columns])].filter((c) => c !== 'ts').map(sqlIdentifier);

export abstract class ReadTimeDialect implements ReadTimeSql {
  abstract readonly notBot: string;
  abstract readonly visitors: string;
  /** The window function giving each row the `ts` of the one before it of the same site and id (NULL for the first). */
  protected abstract readonly previousTs: string;

  abstract value(value: string): string;
  abstract contains(haystack: string, needle: string): string;

  like(haystack: string, pattern: string): string {
    return `${haystack} LIKE ${pattern} ESCAPE '\\'`;
  }
  abstract scan(range: ScanRange, columns: readonly string[]): string;

  int(value: number): string {
    return sqlInteger(value);
  }

  /** Written out: a constant array, folded once per statement. */
  intList(values: readonly number[]): string {
    return `[${values.map(sqlInteger).join(', ')}]`;
  }

  limit(value: number): string {
    return sqlLimit(value);
  }

  number(value: number): string {
    return sqlNumber(value);
  }

  column(name: string): string {
    return sqlIdentifier(name);
  }

  canonical(kind: ScanRange['kinds'][number], sites: readonly SiteRef[], from: number, to: number, columns: readonly string[]): string {
    return this.canonicalIn(kind, sites, [[from, to]], columns);
  }

  /**
   * The rows of one kind in disjoint [from, to) ranges (ascending) that are no copies, as one
   * derived table: one window over the ranges' rows and one copy window before each (merged
   * where they meet, so no row is read twice), which costs less than a window per range.
   */
  canonicalIn(kind: ScanRange['kinds'][number], sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], columns: readonly string[], also?: string): string {
    const wanted = canonicalColumns(columns);
    const read: [number, number][] = [];
    for (const [from, to] of ranges) {
      const last = read[read.length - 1];
      if (last && from - COPY_WINDOW_MS <= last[1]) last[1] = Math.max(last[1], to);
      else read.push([from - COPY_WINDOW_MS, to]);
    }
    const scans = read.map(([from, to]) => this.scan({ kinds: [kind], sites, from, to, also }, ['site', 'id', ...columns]));
    const rows = scans.length === 1 ? (scans[0] as string) : `(${scans.map((scan, i) => `SELECT * FROM ${scan} AS s${i}`).join(' UNION ALL ')})`;
    const kept = ranges.map(([from, to]) => `("ts" >= ${sqlInteger(from)} AND "ts" < ${sqlInteger(to)})`).join(' OR ');
    return `(
      SELECT "ts", ${wanted.join(', ')} FROM (
        SELECT "ts", ${wanted.join(', ')}, ${this.previousTs} AS "previous_ts" FROM ${rows} AS r
      ) AS c
      WHERE (${kept}) AND ("previous_ts" IS NULL OR "ts" - "previous_ts" > ${sqlInteger(COPY_WINDOW_MS)})
    )`;
  }
}
