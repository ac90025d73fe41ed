/**
 * Report aggregates over the DuckDB `events` table. Every query starts from
 * canonical human pageviews: non-bot pageview rows de-duplicated by id, with
 * their appends joined by original_id for engagement.
 */
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { FILTER_COLUMNS, type FilterClause } from '#domain/reports/filter.ts';
import { BREAKDOWN_COLUMNS, SCREEN_CLASSES, type BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, Engagement, ReportScope, ReportStore, TrafficRow, TrafficScope } from '#ports/report-store.ts';

export interface SqlRunner {
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, DuckDBValue>): Promise<T[]>;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Parameters are collected as the SQL is built, so values never enter the SQL text. */
class Params {
  readonly values: Record<string, DuckDBValue> = {};
  private n = 0;
  add(value: DuckDBValue): string {
    const name = `p${this.n++}`;
    this.values[name] = value;
    return `$${name}`;
  }
}

function filterSql(filters: readonly FilterClause[], params: Params): string {
  return filters
    .map((f) => {
      const column = `coalesce(CAST("${FILTER_COLUMNS[f.dim]}" AS VARCHAR), '')`;
      const value = params.add(f.value);
      if (f.op === 'eq') return ` AND ${column} = ${value}`;
      if (f.op === 'neq') return ` AND ${column} <> ${value}`;
      return ` AND contains(${column}, ${value})`;
    })
    .join('');
}

const siteList = (sites: readonly string[], params: Params) => `site IN (SELECT unnest(${params.add(listValue([...sites]))}::VARCHAR[]))`;

/**
 * Canonical pageviews in [from, to) that have engagement: the page's own
 * duration plus its appends' (summed), and the maximum scroll. Appends are
 * few, so they are grouped first and only their parents are read.
 */
function pagesSql(where: string, sites: string, from: string): string {
  return `
    ap AS (
      SELECT site, parent_key AS id, sum(duration) AS duration, max(scrolled) AS scrolled
      FROM events
      WHERE kind = 'append' AND ${sites} AND ts >= ${from} AND parent_key IS NOT NULL
      GROUP BY site, parent_key
    ),
    pv AS (
      SELECT site, id_key AS id, min(ts) AS ts, max(duration) AS own_duration, max(scrolled) AS own_scroll
      FROM events
      WHERE kind = 'pageview' AND NOT bot AND ${where}
        AND (duration IS NOT NULL OR scrolled IS NOT NULL OR id_key IN (SELECT id FROM ap))
      GROUP BY site, id_key
    ),
    page AS (
      SELECT pv.*,
             CASE WHEN pv.own_duration IS NULL AND ap.duration IS NULL THEN NULL
                  ELSE coalesce(pv.own_duration, 0) + coalesce(ap.duration, 0) END AS total_duration,
             greatest(pv.own_scroll, ap.scrolled) AS scroll
      FROM pv LEFT JOIN ap ON ap.site = pv.site AND ap.id = pv.id
    )`;
}

/**
 * The bucket index of `ts` as a balanced tree of comparisons over the sorted
 * boundaries: log2(buckets) vectorized comparisons per row, where a range or
 * ASOF join costs a join. The boundaries are integers made by the planner.
 */
export function bucketExpression(bounds: readonly number[], lo = 0, hi = bounds.length - 2): string {
  if (lo >= hi) return String(lo);
  const mid = Math.floor((lo + hi + 1) / 2);
  const edge = Math.trunc(Number(bounds[mid]));
  return `(CASE WHEN ts < ${edge} THEN ${bucketExpression(bounds, lo, mid - 1)} ELSE ${bucketExpression(bounds, mid, hi)} END)`;
}

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
const VISITORS = 'count(DISTINCT visitor_key) + count(*) FILTER (WHERE visitor_key IS NULL AND uniq)';

function labelExpression(dim: BreakdownDim): string {
  if (dim === 'screens') {
    const cases = SCREEN_CLASSES.filter((c) => Number.isFinite(c.below))
      .map((c) => `WHEN screen_width < ${c.below} THEN '${c.name}'`)
      .join(' ');
    const last = SCREEN_CLASSES[SCREEN_CLASSES.length - 1]!.name;
    return `CASE WHEN screen_width IS NULL OR screen_width <= 0 THEN NULL ${cases} ELSE '${last}' END`;
  }
  return `"${BREAKDOWN_COLUMNS[dim]}"`;
}

/** Pages and referrers keep empty labels (direct traffic); every other list omits them. */
const keepsEmptyLabels = (dim: BreakdownDim) => dim === 'pages' || dim === 'referrers';

export class DuckDbReportStore implements ReportStore {
  constructor(private readonly db: SqlRunner) {}

  /**
   * Per-bucket rows and the whole-range row come from separate scans (distinct
   * counts do not add up across buckets), and engagement from a third that
   * reads only pages that have any; all run side by side.
   */
  async traffic(scope: TrafficScope): Promise<TrafficRow[]> {
    const whole = { ...scope, boundaries: [scope.boundaries[0]!, scope.boundaries[scope.boundaries.length - 1]!] };
    const perBucket = scope.boundaries.length > 2;
    const [buckets, totals, engagement] = await Promise.all([
      perBucket ? this.trafficCounts(scope, true) : Promise.resolve([]),
      this.trafficCounts(whole, false),
      this.trafficEngagement(scope),
    ]);
    const key = (r: Record<string, unknown>) => `${String(r.site)}\n${String(r.bucket ?? '')}`;
    const extra = new Map(engagement.map((r) => [key(r), r]));
    // With one bucket the whole range is that bucket.
    const rows: Record<string, unknown>[] = perBucket ? [...buckets, ...totals] : [...totals, ...totals.map((r) => ({ ...r, bucket: 0 }))];
    return rows.map((r) => {
      const e = extra.get(key(r));
      return {
        site: String(r.site),
        bucket: r.bucket === null || r.bucket === undefined ? null : num(r.bucket),
        pageviews: num(r.pageviews),
        visitors: num(r.visitors),
        duration: numOrNull(e?.duration),
        scrolled: numOrNull(e?.scrolled),
      };
    });
  }

  private trafficCounts(scope: TrafficScope, perBucket: boolean) {
    const p = new Params();
    const bounds = scope.boundaries;
    const where = `${siteList(scope.sites, p)} AND ts >= ${p.add(bounds[0]!)} AND ts < ${p.add(bounds[bounds.length - 1]!)}${filterSql(scope.filters, p)}`;
    const bucket = perBucket ? bucketExpression(bounds) : 'NULL';
    return this.db.query(
      `SELECT site, ${bucket} AS bucket, count(DISTINCT id_key) AS pageviews,
              count(DISTINCT visitor_key) + count(DISTINCT id_key) FILTER (WHERE visitor_key IS NULL AND coalesce("unique", false)) AS visitors
       FROM events WHERE kind = 'pageview' AND NOT bot AND ${where}
       GROUP BY ALL`,
      p.values,
    );
  }

  private trafficEngagement(scope: TrafficScope) {
    const p = new Params();
    const bounds = scope.boundaries;
    const sites = siteList(scope.sites, p);
    const from = p.add(bounds[0]!);
    const where = `${sites} AND ts >= ${from} AND ts < ${p.add(bounds[bounds.length - 1]!)}${filterSql(scope.filters, p)}`;
    return this.db.query(
      `WITH ${pagesSql(where, sites, from)}
       SELECT site, ${bucketExpression(bounds)} AS bucket,
              median(total_duration) FILTER (WHERE total_duration >= 5) AS duration, avg(scroll) AS scrolled
       FROM page
       GROUP BY GROUPING SETS ((site, bucket), (site))`,
      p.values,
    );
  }

  async liveVisitors(sites: readonly string[], since: number): Promise<Map<string, number>> {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT site, count(DISTINCT visitor_key) AS visitors FROM events
       WHERE ${siteList(sites, p)} AND ts >= ${p.add(since)} AND NOT bot AND kind IN ('pageview', 'event') AND visitor_key IS NOT NULL
       GROUP BY site`,
      p.values,
    );
    return new Map(rows.map((r) => [String(r.site), num(r.visitors)]));
  }

  async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    if (dim === 'events') return this.eventBreakdown(scope, limit);
    const p = new Params();
    const from = p.add(scope.from);
    const where = `${siteList([scope.site], p)} AND ts >= ${from} AND ts < ${p.add(scope.to)}${filterSql(scope.filters, p)}`;
    const entryOnly = dim === 'entry_pages' ? 'WHERE uniq' : '';
    const keep = keepsEmptyLabels(dim) ? '' : `${entryOnly ? 'AND' : 'WHERE'} coalesce(name, '') <> ''`;
    const sql = `
      WITH pv AS (
        SELECT id_key, any_value(${labelExpression(dim)}) AS name, max(visitor_key) AS visitor_key, bool_or(coalesce("unique", false)) AS uniq
        FROM events WHERE kind = 'pageview' AND NOT bot AND ${where}
        GROUP BY id_key
      )
      SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors
      FROM pv ${entryOnly} ${keep}
      GROUP BY 1 ORDER BY value DESC, name ASC LIMIT ${p.add(limit)}`;
    const rows = await this.db.query(sql, p.values);
    return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors) }));
  }

  private eventScope(scope: ReportScope, p: Params): string {
    return `kind = 'event' AND NOT bot AND ${siteList([scope.site], p)} AND ts >= ${p.add(scope.from)} AND ts < ${p.add(scope.to)}${filterSql(scope.filters, p)}`;
  }

  private async eventBreakdown(scope: ReportScope, limit: number): Promise<BreakdownRow[]> {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT event AS name, count(DISTINCT id_key) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
       FROM events WHERE ${this.eventScope(scope, p)} AND coalesce(event, '') <> ''
       GROUP BY event ORDER BY value DESC, name ASC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors), last_seen: num(r.last_seen) }));
  }

  async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const p = new Params();
    const [r] = await this.db.query(
      `SELECT count(DISTINCT id_key) AS count, count(DISTINCT visitor_key) AS visitors FROM events WHERE ${this.eventScope(scope, p)} AND coalesce(event, '') <> ''`,
      p.values,
    );
    return { count: num(r?.count), visitors: num(r?.visitors) };
  }

  async livePages(scope: Omit<ReportScope, 'from' | 'to'> & { since: number }, limit: number) {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT path AS name, count(DISTINCT visitor_key) AS visitors FROM events
       WHERE kind = 'pageview' AND NOT bot AND visitor_key IS NOT NULL AND ${siteList([scope.site], p)} AND ts >= ${p.add(scope.since)}${filterSql(scope.filters, p)}
       GROUP BY path ORDER BY visitors DESC, name ASC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map((r) => ({ name: String(r.name ?? ''), visitors: num(r.visitors) }));
  }

  async engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    const p = new Params();
    const from = p.add(scope.from);
    const sites = siteList([scope.site], p);
    const where = `${sites} AND ts >= ${from} AND ts < ${p.add(scope.to)}${filterSql(scope.filters, p)}`;
    const d = durations.map((s, i) => `count(*) FILTER (WHERE total_duration >= ${Number(s)}) AS d${i}`);
    const s = scrolls.map((pct, i) => `count(*) FILTER (WHERE scroll >= ${Number(pct)}) AS s${i}`);
    const [r] = await this.db.query(
      `WITH ${pagesSql(where, sites, from)}
       SELECT count(*) FILTER (WHERE total_duration IS NOT NULL) AS measured,
              count(*) FILTER (WHERE scroll IS NOT NULL) AS scroll_measured, ${[...d, ...s].join(', ')}
       FROM page`,
      p.values,
    );
    return {
      measured: num(r?.measured),
      scrollMeasured: num(r?.scroll_measured),
      durationAtLeast: Object.fromEntries(durations.map((sec, i) => [sec, num(r?.[`d${i}`])])),
      scrollAtLeast: Object.fromEntries(scrolls.map((pct, i) => [pct, num(r?.[`s${i}`])])),
    };
  }
}
