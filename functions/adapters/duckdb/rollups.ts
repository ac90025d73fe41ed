/**
 * Daily rollups of the DuckDB store: per site, registration and UTC day,
 * each breakdown's labels with their canonical pageviews (or events) and
 * distinct visitors, the day's event totals, per quarter-hour slot the
 * pageviews and the visitors whose first or last pageview of the day fell in
 * it (traffic.ts, traffic-engagement.ts), and each engaged page with its appends summed in.
 * Visitor hashes never repeat across UTC days, so a range of whole days is
 * the sum of its days; the report store adds the raw rows of the partial
 * days at its ends.
 *
 * Labels and slots are also kept per variant: the rows one `dim:value`
 * filter clause keeps (reports/plan.ts rollupVariant), built the first time a
 * report under that clause needs them, so a click on a dashboard row reads
 * sums too. A site keeps the variants of its last MAX_VARIANTS clauses; the
 * least recently built goes first. Engaged pages keep the columns filters
 * compare, so they are built for the site's own rows only.
 *
 * A day's rollup is a cache of a pure function of its rows: it is built
 * when a report first needs it, on the writer connection between batches,
 * and every batch deletes the rollups of the days it touches (and the day on
 * either side, whose copy and first-pageview flags it may repair), in the
 * batch's own transaction. So a rollup is either absent or equal to what
 * its rows give now; it is never merely close.
 */
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { DAY_MS } from '#domain/rows/days.ts';
import { FILTERED_COLUMNS, type FilterClause } from '#domain/reports/filter.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { CANONICAL, CANONICAL_EVENTS, DuckDbSql, VISITORS } from '#reports/sql/dialects/duckdb.ts';
import { duckdbEngagedPages } from '#reports/sql/engaged-pages.ts';
import { entryOnly, filterSql, labelExpression, ROLLED_DIMS } from '#reports/sql/text.ts';
import { RETIRED_ROLLUPS, ROLLUP_DAYS, ROLLUP_PAGES, ROLLUP_LABELS, ROLLUP_SLOTS } from '#reports/sql/dialects/duckdb-rollups.ts';
import { isSubjectVariant, SUBJECT_DIM, SUBJECT_PREFIX, UNFILTERED, variantOf } from '#reports/plan.ts';
import type { SubjectRows } from '#reports/plan.ts';
import { dayRuns, touchedDays } from '#domain/rows/days.ts';
import { SLOT_MS } from '#reports/sql/sealed-days.ts';
import { inTransaction } from './transaction.ts';

/** The day's event totals: all named events and their distinct visitors (a label of its own). */
export const EVENT_TOTALS = 'event_totals';
export type RollupDim = BreakdownDim | typeof EVENT_TOTALS;

const ROLLUP_KEY = 'site VARCHAR NOT NULL, registration VARCHAR NOT NULL, day INTEGER NOT NULL';
/** The key of the tables kept per variant; a days row also notes when it was built (the variants' eviction order). */
const VARIANT_KEY = `${ROLLUP_KEY}, variant VARCHAR NOT NULL`;
const ROLLED_TABLES = [ROLLUP_DAYS, ROLLUP_LABELS, ROLLUP_SLOTS, ROLLUP_PAGES];

/** Filter variants a site keeps (beyond its own rollups). */
export const MAX_VARIANTS = 16;
/** Reports' own subjects a site keeps (goal lists, funnels, metadata keys: plan.ts subjectVariant). */
export const MAX_SUBJECTS = 64;

/** A report's own subject, whose rows a build stores (plan.ts SubjectRows). */
export type DuckDbSubject = SubjectRows<DuckDbSql>;

/** The statements that make the rollup tables (and drop those of earlier versions). */
const ROLLUP_TABLES = [
  ...RETIRED_ROLLUPS.map((table) => `DROP TABLE IF EXISTS ${table}`),
  `CREATE TABLE IF NOT EXISTS ${ROLLUP_DAYS} (${VARIANT_KEY}, built_at BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${ROLLUP_LABELS} (${VARIANT_KEY}, dim VARCHAR NOT NULL, name VARCHAR NOT NULL, value BIGINT NOT NULL, visitors BIGINT NOT NULL, last_seen BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ${ROLLUP_SLOTS} (${VARIANT_KEY}, slot INTEGER NOT NULL,
     pageviews BIGINT NOT NULL, firsts BIGINT NOT NULL, lasts BIGINT NOT NULL, unhashed BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${ROLLUP_PAGES} (${ROLLUP_KEY}, ts BIGINT NOT NULL, total_duration DOUBLE, scroll INTEGER,
     ${FILTERED_COLUMNS.map((c) => `"${c}" VARCHAR`).join(', ')})`,
];

/** The rows of a build: its site's in [$from, $to), those the variant's clause keeps (`filter`, from filterSql). */
const BUILD_SCOPE = `site = $site AND registration = $registration AND ts >= $from AND ts < $to`;

/** The rows a dimension counts and how it labels them, as in breakdown.ts. */
function rollupSelect(dim: RollupDim, filter: string): string {
  const day = `(ts // ${DAY_MS})::INTEGER`;
  const scope = `${BUILD_SCOPE}${filter}`;
  if (dim === 'events' || dim === EVENT_TOTALS) {
    const name = dim === 'events' ? 'event' : "''";
    return `SELECT site, registration, ${day} AS day, $variant AS variant, '${dim}' AS dim, ${name} AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
      FROM events WHERE ${CANONICAL_EVENTS} AND ${scope}
      GROUP BY ALL`;
  }
  return `SELECT site, registration, day, $variant AS variant, '${dim}' AS dim, coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors, NULL AS last_seen
    FROM (SELECT *, ${day} AS day, ${labelExpression(new DuckDbSql(listValue), dim)} AS name FROM events WHERE ${CANONICAL} AND ${scope}${entryOnly(dim)})
    GROUP BY site, registration, day, coalesce(name, '')`;
}

const DIMS: readonly RollupDim[] = [...ROLLED_DIMS, EVENT_TOTALS];

const SLOT = `(ts % ${DAY_MS}) // ${SLOT_MS}`;

/**
 * Canonical pageviews per slot, and each visitor hash's first and last pageview of the day by the
 * slot it fell in: a visitor seen from slot s to the day's end has its last pageview there, one
 * seen from the day's start to slot s its first (the rolled counts of traffic.ts).
 */
const slotsSelect = (filter: string) => `
  WITH pv AS (SELECT site, registration, ts, visitor_key, "unique" FROM events WHERE ${CANONICAL} AND ${BUILD_SCOPE}${filter}),
  seen AS (SELECT site, registration, min(ts) AS first_ts, max(ts) AS last_ts FROM pv WHERE visitor_key IS NOT NULL GROUP BY site, registration, visitor_key, ts // ${DAY_MS})
  SELECT site, registration, day, $variant, slot, sum(pageviews), sum(firsts), sum(lasts), sum(unhashed) FROM (
    SELECT site, registration, (ts // ${DAY_MS})::INTEGER AS day, (${SLOT})::INTEGER AS slot, count(*) AS pageviews, 0 AS firsts, 0 AS lasts,
           count(*) FILTER (WHERE visitor_key IS NULL AND coalesce("unique", false)) AS unhashed
    FROM pv GROUP BY ALL
    UNION ALL
    SELECT site, registration, (first_ts // ${DAY_MS})::INTEGER, ((first_ts % ${DAY_MS}) // ${SLOT_MS})::INTEGER, 0, count(*), 0, 0 FROM seen GROUP BY ALL
    UNION ALL
    SELECT site, registration, (last_ts // ${DAY_MS})::INTEGER, ((last_ts % ${DAY_MS}) // ${SLOT_MS})::INTEGER, 0, 0, count(*), 0 FROM seen GROUP BY ALL
  ) GROUP BY ALL`;

/** The engaged pages of the range (engaged-pages.ts), each with its ts and the filters' columns: their appends are joined once, here, not by every read. */
function pagesSelect(site: string, registration: string, from: number, to: number): { text: string; params: Record<string, unknown> } {
  const sql = new DuckDbSql(listValue);
  const pages = duckdbEngagedPages(sql, [{ site, registration }], [[from, to]], [], FILTERED_COLUMNS);
  const columns = FILTERED_COLUMNS.map((c) => sql.column(c)).join(', ');
  return {
    text: `WITH ${pages} SELECT site, ${sql.bind(registration)}, (ts // ${DAY_MS})::INTEGER, ts, total_duration, scroll, ${columns} FROM page`,
    params: sql.params,
  };
}

/** Days built per transaction, so a first read of a long range holds writes back a little at a time. */
const BUILD_DAYS = 31;

/** A subject's rows of a build's days, as labels of its variant. */
function subjectSelect(sql: DuckDbSql, subject: DuckDbSubject, site: string, registration: string, from: number, to: number): string {
  return `SELECT $site, $registration, day::INTEGER, $variant, '${SUBJECT_DIM}', name, value, visitors, NULL FROM (${subject.rows(sql, { site, registration }, [[from, to]])})`;
}

/**
 * Builds the missing rollups of `site` for days first..last, of the variant of `filters` (none, or
 * one `dim:value` clause) or of a report's own `subject`, marked built `at`; a new variant beyond
 * MAX_VARIANTS (a subject beyond MAX_SUBJECTS) evicts the least recently built of its kind.
 * Runs on the writer connection, between batches (the caller holds the writes' turn).
 */
async function buildRollups(
  writer: DuckDBConnection,
  site: string,
  registration: string,
  first: number,
  last: number,
  filters: readonly FilterClause[],
  at: number,
  subject?: DuckDbSubject,
): Promise<string[]> {
  const variant = subject?.variant ?? variantOf(filters);
  const built = await writer.runAndReadAll(
    `SELECT day FROM ${ROLLUP_DAYS} WHERE site = $site AND registration = $registration AND variant = $variant AND day BETWEEN $first AND $last`,
    { site, registration, variant, first, last },
  );
  const have = new Set(built.getRowObjectsJS().map((r) => Number(r.day)));
  const missing: number[] = [];
  for (let d = first; d <= last; d++) if (!have.has(d)) missing.push(d);
  const sql = new DuckDbSql(listValue);
  const filter = filterSql(sql, filters);
  const evicted = missing.length > 0 && variant !== UNFILTERED ? await evictVariants(writer, site, registration, variant) : [];
  // One range scan per run of consecutive missing days.
  for (const [from, to] of dayRuns(missing, BUILD_DAYS)) {
    await inTransaction(writer, async () => {
      const range = { site, registration, variant, from: from * DAY_MS, to: (to + 1) * DAY_MS, ...sql.params };
      if (subject) {
        const own = new DuckDbSql(listValue);
        const text = subjectSelect(own, subject, site, registration, range.from, range.to);
        await writer.run(`INSERT INTO ${ROLLUP_LABELS} ${text}`, { site, registration, variant, ...own.params });
      } else {
        for (const dim of DIMS) await writer.run(`INSERT INTO ${ROLLUP_LABELS} ${rollupSelect(dim, filter)}`, range);
        await writer.run(`INSERT INTO ${ROLLUP_SLOTS} ${slotsSelect(filter)}`, range);
      }
      if (variant === UNFILTERED) {
        const pages = pagesSelect(site, registration, range.from, range.to);
        await writer.run(`INSERT INTO ${ROLLUP_PAGES} ${pages.text}`, pages.params as never);
      }
      await writer.run(`INSERT INTO ${ROLLUP_DAYS} SELECT $site, $registration, unnest(range($from::INTEGER, $to::INTEGER + 1)), $variant, $at`, {
        site,
        registration,
        variant,
        from,
        to,
        at,
      });
    });
  }
  return evicted;
}

/**
 * Before a build of `variant`: when the site keeps MAX_VARIANTS others of its kind (filters' or
 * subjects': MAX_SUBJECTS), deletes those built least recently (each variant's newest build
 * time), so the site keeps at most that many. Returns them.
 */
async function evictVariants(writer: DuckDBConnection, site: string, registration: string, variant: string): Promise<string[]> {
  const subject = isSubjectVariant(variant);
  const key = { site, registration, variant, unfiltered: UNFILTERED, keep: (subject ? MAX_SUBJECTS : MAX_VARIANTS) - 1, subject, prefix: SUBJECT_PREFIX };
  const rows = await writer.runAndReadAll(
    `SELECT variant FROM ${ROLLUP_DAYS} WHERE site = $site AND registration = $registration AND variant NOT IN ($variant, $unfiltered)
       AND starts_with(variant, $prefix) = $subject
     GROUP BY variant ORDER BY max(built_at) DESC, variant OFFSET $keep`,
    key,
  );
  const evicted = rows.getRowObjectsJS().map((r) => String(r.variant));
  if (evicted.length === 0) return evicted;
  await inTransaction(writer, async () => {
    for (const table of [ROLLUP_DAYS, ROLLUP_LABELS, ROLLUP_SLOTS]) {
      await writer.run(`DELETE FROM ${table} WHERE site = $site AND registration = $registration AND variant IN (SELECT unnest($evicted::VARCHAR[]))`, {
        site,
        registration,
        evicted: listValue(evicted),
      });
    }
  });
  return evicted;
}

const siteKey = (site: string, registration: string) => `${site}\u0000${registration}`;

/** A variant's built days in a site's map, made empty when it has none yet. */
function daysOf(variants: Map<string, Set<number>>, variant: string): Set<number> {
  const days = variants.get(variant) ?? new Set<number>();
  variants.set(variant, days);
  return days;
}

/**
 * The rollups of one store, kept by its writer: built between batches, forgotten by the batches
 * that touch their days, and which days are built remembered in memory as the last commit left
 * them, so a read names its days without a statement. A site's days (of every variant) are loaded
 * from the table the first time a read asks (under the writes' turn, so no batch interleaves). A
 * read that named a day a batch removed after the look sees it in `still_built` (dialects/duckdb-rollups.ts).
 */
export class DuckDbRollups {
  /** Per site and registration, per variant, its built days. */
  private readonly built = new Map<string, Map<string, Set<number>>>();
  /** The last build's time: each build is marked later than the one before, so eviction never meets a tie. */
  private builtAt = 0;

  private constructor(
    private readonly writer: DuckDBConnection,
    /** Whether any rollup is stored: until one is, batches have none to forget. */
    private exist: boolean,
  ) {}

  /** Makes the tables (dropping earlier versions') on the writer connection. */
  static async open(writer: DuckDBConnection): Promise<DuckDbRollups> {
    for (const statement of ROLLUP_TABLES) await writer.run(statement);
    const [state] = (await writer.runAndReadAll(`SELECT count(*) AS rolled FROM ${ROLLUP_DAYS}`)).getRowObjectsJS();
    return new DuckDbRollups(writer, Number(state?.rolled ?? 0) > 0);
  }

  /** The built days of first..last of the variant of `filters` (or `variant`), when this site's days are loaded; undefined when they must be loaded first. */
  known(site: string, registration: string, first: number, last: number, filters: readonly FilterClause[] = [], variant = variantOf(filters)): number[] | undefined {
    const variants = this.built.get(siteKey(site, registration));
    if (!variants) return undefined;
    const days = variants.get(variant);
    const out: number[] = [];
    if (days) for (let d = first; d <= last; d++) if (days.has(d)) out.push(d);
    return out;
  }

  /** Loads a site's built days, of every variant, from the table (the caller holds the writes' turn). */
  async load(site: string, registration: string): Promise<void> {
    const rows = await this.writer.runAndReadAll(`SELECT variant, day FROM ${ROLLUP_DAYS} WHERE site = $site AND registration = $registration`, { site, registration });
    const variants = new Map<string, Set<number>>();
    for (const r of rows.getRowObjectsJS()) daysOf(variants, String(r.variant)).add(Number(r.day));
    this.built.set(siteKey(site, registration), variants);
  }

  /** Builds the missing rollups of first..last of the variant of `filters`, or of a report's own `subject` (the caller holds the writes' turn). */
  async build(site: string, registration: string, first: number, last: number, filters: readonly FilterClause[] = [], subject?: DuckDbSubject): Promise<void> {
    this.builtAt = Math.max(Date.now(), this.builtAt + 1);
    const evicted = await buildRollups(this.writer, site, registration, first, last, filters, this.builtAt, subject);
    this.exist = true;
    // Every day of first..last is built now; a site not yet in memory is read whole.
    const variants = this.built.get(siteKey(site, registration));
    if (!variants) return this.load(site, registration);
    for (const variant of evicted) variants.delete(variant);
    const days = daysOf(variants, subject?.variant ?? variantOf(filters));
    for (let d = first; d <= last; d++) days.add(d);
  }

  /**
   * Inside a batch's transaction: deletes the rollups (of every variant) the batch makes stale.
   * Returns what to forget in memory once the transaction commits (nothing when no rollup exists).
   */
  async invalidate(rows: readonly EventRow[]): Promise<(() => void) | null> {
    if (!this.exist) return null;
    const touched = touchedDays(rows, [-1, 0, 1]);
    const params = { sites: listValue(touched.sites), registrations: listValue(touched.registrations), days: listValue(touched.days) };
    for (const table of ROLLED_TABLES) {
      await this.writer.run(
        `DELETE FROM ${table} USING (SELECT unnest($sites::VARCHAR[]) AS s, unnest($registrations::VARCHAR[]) AS r, unnest($days::INTEGER[]) AS d) AS touched
         WHERE ${table}.site = touched.s AND ${table}.registration = touched.r AND ${table}.day = touched.d`,
        params,
      );
    }
    return () =>
      touched.days.forEach((d, i) => {
        const variants = this.built.get(siteKey(touched.sites[i] as string, touched.registrations[i] as string));
        variants?.forEach((days) => days.delete(d));
      });
  }

  /**
   * Inside a transaction: the rollups (of every variant) of a site's days first..last go (a removal
   * of its rows, range-removal.ts). Returns what to forget in memory once the transaction commits.
   */
  async removeDays(site: string, registration: string, first: number, last: number): Promise<() => void> {
    for (const table of ROLLED_TABLES) {
      await this.writer.run(`DELETE FROM ${table} WHERE site = $site AND registration = $registration AND day BETWEEN $first AND $last`, { site, registration, first, last });
    }
    return () => this.built.get(siteKey(site, registration))?.forEach((days) => days.forEach((d) => d >= first && d <= last && days.delete(d)));
  }

  /** Inside a transaction: every rollup goes (the flags were recomputed from scratch). Returns what to forget once it commits. */
  async clear(): Promise<() => void> {
    for (const table of ROLLED_TABLES) await this.writer.run(`DELETE FROM ${table}`);
    return () => this.built.clear();
  }
}
