/**
 * The ClickHouse dialect: the append-only `events` table of
 * adapters/clickhouse (one column per EventRow field, sorted by site and ts).
 * Rows carry no writer flags, so `canonical` decides copies when it reads
 * (domain/reports/copies.ts: no row of the same site and id at most
 * COPY_WINDOW_MS before), as the Timestream dialect does. Values are bound
 * `{name:Type}` parameters, so they never enter the statement's text.
 */
import { DAY_MS } from '#domain/event-flags/flag-index.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { ReadTimeDialect, type ScanRange } from './read-time.ts';
import { sqlIdentifier, sqlInteger } from '../text.ts';

export const NOT_BOT = 'NOT "bot"';

/** Pageviews without a visitor hash that are flagged unique: each is a visitor of its own. */
export const UNHASHED = `countIf("visitor" IS NULL AND coalesce("unique", false))`;

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
export const VISITORS = `count(DISTINCT "visitor") + ${UNHASHED}`;

export class ClickHouseSql extends ReadTimeDialect {
  readonly notBot = NOT_BOT;
  readonly visitors = VISITORS;
  protected readonly previousTs =
    'lagInFrame(toNullable("ts")) OVER (PARTITION BY "site", "id" ORDER BY "ts" ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)';
  readonly params: Record<string, unknown> = {};
  private n = 0;

  /** `table`: the events table, database-qualified and quoted. */
  constructor(readonly table: string) {
    super();
  }

  /** A bound `{pN:type}` parameter holding `value`. */
  bind(value: unknown, type: string): string {
    const name = `p${this.n++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }

  value(value: string): string {
    return this.bind(value, 'String');
  }

  contains(haystack: string, needle: string): string {
    return `position(${haystack}, ${needle}) > 0`;
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
  scan({ kinds, sites, from, to }: ScanRange, columns: readonly string[]): string {
    const wanted = [...new Set(columns)].filter((c) => c !== 'ts').map(sqlIdentifier);
    const until = to === undefined ? '' : ` AND "ts" < ${sqlInteger(to)}`;
    return `(SELECT "ts"${wanted.map((c) => `, ${c}`).join('')} FROM ${this.table}
      WHERE "kind" IN ${this.bind(kinds, 'Array(String)')} AND ${this.sites(sites)} AND "ts" >= ${sqlInteger(from)}${until})`;
  }
}
