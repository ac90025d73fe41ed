/**
 * The ClickHouse dialect: the append-only `events` table of
 * adapters/clickhouse (one column per EventRow field, sorted by site and ts).
 * Rows carry no writer flags, so `canonical` decides copies when it reads
 * (domain/reports/copies.ts: no row of the same site and id at most
 * COPY_WINDOW_MS before), as the Timestream dialect does. Values are bound
 * `{name:Type}` parameters, so they never enter the statement's text.
 */
import { COPY_WINDOW_MS } from '#domain/reports/copies.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { sqlIdentifier, sqlInteger, sqlLimit, sqlNumber, type SqlText } from '../text.ts';

export const NOT_BOT = 'NOT "bot"';

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
export const VISITORS = `count(DISTINCT "visitor") + countIf("visitor" IS NULL AND coalesce("unique", false))`;

type Kind = 'pageview' | 'event' | 'append';

export class ClickHouseSql implements SqlText {
  readonly params: Record<string, unknown> = {};
  private n = 0;

  /** `table`: the events table, database-qualified and quoted. */
  constructor(readonly table: string) {}

  private bind(value: unknown, type: string): string {
    const name = `p${this.n++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }

  value(value: string): string {
    return this.bind(value, 'String');
  }

  int(value: number): string {
    return sqlInteger(value);
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

  contains(haystack: string, needle: string): string {
    return `position(${haystack}, ${needle}) > 0`;
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
  scan(kinds: readonly Kind[], sites: readonly SiteRef[], from: number, to: number | undefined, columns: readonly string[]): string {
    const wanted = [...new Set(columns)].filter((c) => c !== 'ts').map(sqlIdentifier);
    const until = to === undefined ? '' : ` AND "ts" < ${sqlInteger(to)}`;
    return `(SELECT "ts"${wanted.map((c) => `, ${c}`).join('')} FROM ${this.table}
      WHERE "kind" IN ${this.bind(kinds, 'Array(String)')} AND ${this.sites(sites)} AND "ts" >= ${sqlInteger(from)}${until})`;
  }

  /**
   * The rows of one kind in [from, to) that are not copies: each row's
   * previous row of the same site and id, read one window before the range,
   * is more than COPY_WINDOW_MS earlier or absent.
   */
  canonical(kind: Kind, sites: readonly SiteRef[], from: number, to: number, columns: readonly string[]): string {
    const wanted = [...new Set(['site', 'id', ...columns])].filter((c) => c !== 'ts').map(sqlIdentifier);
    const rows = this.scan([kind], sites, from - COPY_WINDOW_MS, to, ['site', 'id', ...columns]);
    return `(
      SELECT "ts", ${wanted.join(', ')} FROM (
        SELECT "ts", ${wanted.join(', ')},
               lagInFrame(toNullable("ts")) OVER (PARTITION BY "site", "id" ORDER BY "ts" ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS "previous_ts"
        FROM ${rows} AS r
      ) AS c
      WHERE "ts" >= ${sqlInteger(from)} AND ("previous_ts" IS NULL OR "ts" - "previous_ts" > ${sqlInteger(COPY_WINDOW_MS)})
    )`;
  }
}
