/**
 * The ClickHouse dialect: the append-only `events` table of
 * adapters/clickhouse (one column per EventRow field, sorted by site and ts).
 * Rows carry no writer flags. The rows stored since the writer lists copies
 * (`Listing`) are read as stored, less the listed copies; for older ones
 * `canonical` decides copies when it reads (domain/rows/copies.ts: no row
 * of the same site and id at most COPY_WINDOW_MS before), as the Timestream
 * dialect does. Values are bound `{name:Type}` parameters, so they never
 * enter the statement's text.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import { inRanges, lessListedCopies, previousTsOver, type Listing } from '#domain/rows/flags/clickhouse-sql.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { canonicalColumns, ReadTimeDialect, type ScanRange } from './read-time.ts';
import { sqlIdentifier, sqlInteger } from '#domain/sql-literals.ts';

/** The parts of disjoint ascending [from, to) ranges before `at`, and those from it. */
export function splitRanges(ranges: readonly (readonly [number, number])[], at: number): { before: [number, number][]; after: [number, number][] } {
  const before: [number, number][] = [];
  const after: [number, number][] = [];
  for (const [from, to] of ranges) {
    if (from < at) before.push([from, Math.min(to, at)]);
    if (to > at) after.push([Math.max(from, at), to]);
  }
  return { before, after };
}

export const NOT_BOT = 'NOT "bot"';

/** Pageviews without a visitor hash that are flagged unique: each is a visitor of its own. */
export const UNHASHED = `countIf("visitor" IS NULL AND coalesce("unique", false))`;

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
export const VISITORS = `count(DISTINCT "visitor") + ${UNHASHED}`;

export class ClickHouseSql extends ReadTimeDialect {
  readonly notBot = NOT_BOT;
  readonly visitors = VISITORS;
  protected readonly previousTs = previousTsOver(['site', 'id']);
  readonly params: Record<string, unknown> = {};
  private n = 0;

  /**
   * `table`: the events table, database-qualified and quoted; `listing`: the writer's copies, where it keeps them;
   * `prefix`: of the parameters' names, so statements sent together keep theirs apart.
   */
  constructor(
    readonly table: string,
    private readonly listing?: Listing,
    private readonly prefix = 'p',
  ) {
    super();
  }

  /** The writer's lists, where it keeps them. */
  get listed(): Listing | undefined {
    return this.listing;
  }

  /** A bound `{<prefix>N:type}` parameter holding `value`. */
  bind(value: unknown, type: string): string {
    const name = `${this.prefix}${this.n++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }

  value(value: string): string {
    return this.bind(value, 'String');
  }

  contains(haystack: string, needle: string): string {
    return `position(${haystack}, ${needle}) > 0`;
  }

  /** ClickHouse's LIKE escapes with a backslash of its own (no ESCAPE clause). */
  override like(haystack: string, pattern: string): string {
    return `like(${haystack}, ${pattern})`;
  }

  /** The sites' matching rows of the range, with a hash, no bot's: a set the rows' visitor is looked up in. */
  convertedVisitors(sites: readonly SiteRef[], condition: string, window: { from: number; to: number }, without = false): string {
    return `${without ? '"visitor" IS NOT NULL AND "visitor" NOT IN' : '"visitor" IN'} (SELECT "visitor" FROM ${this.table} WHERE ${this.sites(sites)} AND "ts" >= ${sqlInteger(window.from)} AND "ts" < ${sqlInteger(window.to)}
      AND NOT "bot" AND "visitor" IS NOT NULL AND ${condition})`;
  }

  utcDay(ts: string): string {
    return `intDiv(${ts}, ${sqlInteger(DAY_MS)})`;
  }

  /** The rows of the sites' current registrations (a registration key belongs to one hostname: domain/registration.ts). */
  sites(sites: readonly SiteRef[]): string {
    if (sites.length === 0) return 'false';
    return `"site" IN ${this.bind(sites.map((s) => s.site), 'Array(String)')} AND "registration" IN ${this.bind(
      sites.map((s) => s.registration),
      'Array(String)',
    )}`;
  }

  /** Rows of some kinds and sites from `from` (and before `to`), with `ts` and the named columns. */
  scan({ kinds, sites, from, to, also }: ScanRange, columns: readonly string[]): string {
    const wanted = [...new Set(columns)].filter((c) => c !== 'ts').map(sqlIdentifier);
    const until = to === undefined ? '' : ` AND "ts" < ${sqlInteger(to)}`;
    return `(SELECT "ts"${wanted.map((c) => `, ${c}`).join('')} FROM ${this.table}
      WHERE "kind" IN ${this.bind(kinds, 'Array(String)')} AND ${this.sites(sites)} AND "ts" >= ${sqlInteger(from)}${until}${also ? ` AND ${also}` : ''})`;
  }

  /**
   * The parts of the ranges from `listing.since` are read as stored, less the listed copies, and
   * one row of each stored twice (`LIMIT 1 BY`: two deliveries before the table merged them); the
   * parts before it through the copy window.
   */
  override canonicalIn(kind: ScanRange['kinds'][number], sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], columns: readonly string[], also?: string): string {
    return this.canonicalOf([kind], sites, ranges, columns, also);
  }

  /**
   * canonicalIn over rows of several kinds at once (name `kind` in `columns` to tell them apart):
   * the rows from `listing.since` in one read, those before through each kind's copy window.
   */
  canonicalOf(
    kinds: readonly ScanRange['kinds'][number][],
    sites: readonly SiteRef[],
    ranges: readonly (readonly [number, number])[],
    columns: readonly string[],
    also?: string,
  ): string {
    const windowed = (rs: readonly (readonly [number, number])[]) => {
      const reads = kinds.map((kind) => super.canonicalIn(kind, sites, rs, columns, also));
      return reads.length === 1 ? (reads[0] as string) : `(${reads.map((read, i) => `SELECT * FROM ${read} AS k${i}`).join(' UNION ALL ')})`;
    };
    if (!this.listing || ranges.length === 0) return windowed(ranges);
    const { before, after } = splitRanges(ranges, this.listing.since);
    if (after.length === 0) return windowed(ranges);
    const kindIs = kinds.length === 1 ? `"kind" = ${this.value(kinds[0] as string)}` : `"kind" IN ${this.bind(kinds, 'Array(String)')}`;
    const listed = lessListedCopies(this.table, this.listing.copies, ['"ts"', ...canonicalColumns(columns)], `${kindIs} AND ${this.sites(sites)} AND (${inRanges('"ts"', after)})`, also ? ` AND ${also}` : '');
    if (before.length === 0) return listed;
    return `(SELECT * FROM ${windowed(before)} AS w UNION ALL SELECT * FROM ${listed} AS l)`;
  }
}
