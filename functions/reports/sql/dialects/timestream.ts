/**
 * The Timestream dialect: the multi-measure records of
 * timestream-event-store.ts (`measure_name` is the kind, `time` the arrival
 * time, dimensions and measures are columns). Timestream has no bind
 * parameters, so every value enters the text as a literal: strings through
 * `sqlString`, numbers only after validation, identifiers quoted.
 *
 * A column exists only once some record carried it (nulls are never
 * written), so each statement reads the table through `scan`, which projects
 * the columns it needs and stands a typed NULL in for any the table does not
 * have (yet).
 */
import type { EventRow } from '#domain/rows/event-row.ts';
import { ReadTimeDialect, type ScanRange } from './read-time.ts';
import { sqlIdentifier, sqlInteger, sqlString } from '#domain/sql-literals.ts';

type SqlType = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';
export type ColumnName = Exclude<keyof EventRow, 'ts'>;

/** Every column the event store may write, with its type (timestream-event-store.ts). */
export const COLUMN_TYPES: Readonly<Record<ColumnName, SqlType>> = {
  site: 'VARCHAR', registration: 'VARCHAR', id: 'VARCHAR', kind: 'VARCHAR', country: 'VARCHAR', browser: 'VARCHAR', os: 'VARCHAR', device: 'VARCHAR', language: 'VARCHAR',
  original_id: 'VARCHAR', event: 'VARCHAR', visitor: 'VARCHAR', page_id: 'VARCHAR', session_id: 'VARCHAR', path: 'VARCHAR', query: 'VARCHAR',
  referrer: 'VARCHAR', referrer_host: 'VARCHAR', utm_source: 'VARCHAR', utm_medium: 'VARCHAR', utm_campaign: 'VARCHAR', utm_term: 'VARCHAR',
  utm_content: 'VARCHAR', source: 'VARCHAR', metadata: 'VARCHAR', source_id: 'VARCHAR',
  viewport_width: 'BIGINT', viewport_height: 'BIGINT', screen_width: 'BIGINT', screen_height: 'BIGINT', scrolled: 'BIGINT',
  duration: 'DOUBLE',
  unique: 'BOOLEAN', bot: 'BOOLEAN', https: 'BOOLEAN', imported: 'BOOLEAN',
};

const isColumn = (name: string): name is ColumnName => Object.hasOwn(COLUMN_TYPES, name);

/** What the statements need to know about the table. */
export interface SqlContext {
  database: string;
  table: string;
  /** Whether the table has the column; absent ones read as typed NULLs. */
  has(column: ColumnName): boolean;
}

export const NOT_BOT = 'NOT coalesce("bot", false)';

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
export const VISITORS = `count(DISTINCT "visitor") + count(CASE WHEN "visitor" IS NULL AND coalesce("unique", false) THEN 1 END)`;


const ms = (value: number) => `from_milliseconds(${sqlInteger(value)})`;

export class TimestreamSql extends ReadTimeDialect {
  readonly notBot = NOT_BOT;
  readonly visitors = VISITORS;
  protected readonly previousTs = 'lag("ts") OVER (PARTITION BY "site", "id" ORDER BY "ts")';

  constructor(readonly table: SqlContext) {
    super();
  }

  value(value: string): string {
    return sqlString(value);
  }

  contains(haystack: string, needle: string): string {
    return `strpos(${haystack}, ${needle}) > 0`;
  }

  /**
   * The records of some kinds, sites and time range as a derived table with
   * `ts` (Unix ms) and the named columns, of the sites' current registrations
   * only. The range is on `time` and the site on the partition key, so
   * Timestream prunes before anything else runs.
   */
  scan(range: ScanRange, columns: readonly string[]): string {
    if (range.also !== undefined) throw new Error('the Timestream dialect scans without extra conditions');
    const wanted = [...new Set(columns)];
    const column = (name: string) => {
      if (!isColumn(name)) throw new RangeError(`unknown column: ${name}`);
      return this.table.has(name) ? sqlIdentifier(name) : `CAST(NULL AS ${COLUMN_TYPES[name]})`;
    };
    const projection = ['to_milliseconds(time) AS "ts"', ...wanted.map((name) => `${column(name)} AS ${sqlIdentifier(name)}`)];
    const where = [
      `measure_name IN (${range.kinds.map(sqlString).join(', ')})`,
      `${column('site')} IN (${range.sites.map((s) => sqlString(s.site)).join(', ')})`,
      // A registration key belongs to one hostname (domain/registration.ts), so the two lists pick exactly the sites' own
      // rows. Records written before registrations existed have none and are shown to no one.
      `${column('registration')} IN (${range.sites.map((s) => sqlString(s.registration)).join(', ')})`,
      `time >= ${ms(range.from)}`,
      ...(range.to === undefined ? [] : [`time < ${ms(range.to)}`]),
    ];
    return `(SELECT ${projection.join(', ')} FROM ${sqlIdentifier(this.table.database)}.${sqlIdentifier(this.table.table)} WHERE ${where.join(' AND ')})`;
  }
}

/** The table's columns (SELECT permission suffices). */
export const describeSql = (ctx: Pick<SqlContext, 'database' | 'table'>) => `DESCRIBE ${sqlIdentifier(ctx.database)}.${sqlIdentifier(ctx.table)}`;
