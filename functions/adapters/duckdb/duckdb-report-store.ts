/**
 * Report aggregates over the DuckDB `events` view. Every query starts from
 * canonical human pageviews: non-bot pageview rows de-duplicated by id, which
 * here is `NOT replay` (the store marks the later rows of an id), with their
 * appends joined by original_id for engagement.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { FILTER_COLUMNS, type FilterClause } from '#domain/reports/filter.ts';
import { BREAKDOWN_COLUMNS, SCREEN_CLASSES, type BreakdownDim } from '#domain/reports/query.ts';
import type { ReadPool } from './read-pool.ts';
import type { BreakdownRow, Engagement, LabelDim, ReportScope, ReportStore, SiteRef, TrafficRow, TrafficScope } from '#ports/report-store.ts';


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

/** Rows of `sites` in [from, to) that pass the filters. */
function scopeSql(p: Params, sites: readonly SiteRef[], from: number, to: number, filters: readonly FilterClause[]): string {
  return `${siteList(sites, p)} AND ts >= ${p.add(from)} AND ts < ${p.add(to)}${filterSql(filters, p)}`;
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

/** Plain comparisons with constants, which the scan turns into zone-map filters (a subquery would not be). */
const inList = (column: string, values: readonly string[], params: Params) =>
  values.length === 1 ? `${column} = ${params.add(values[0]!)}` : `${column} IN (${values.map((v) => params.add(v)).join(', ')})`;

/**
 * The rows of the sites' current registrations. A registration key belongs to
 * one hostname (domain/registration.ts), so the two lists pick exactly each
 * site's own rows; every other registration's rows are never counted.
 */
const siteList = (sites: readonly SiteRef[], params: Params) =>
  sites.length === 0
    ? 'false'
    : `${inList('site', sites.map((s) => s.site), params)} AND ${inList('registration', sites.map((s) => s.registration), params)}`;

/**
 * Canonical pageviews in [from, to) matching the filters that have
 * engagement: the page's own duration plus its appends' (summed), and the
 * maximum scroll. The writer stamps each append with its page's ts
 * (`parent_ts`), so only the appends of the range's pages are read. Without
 * filters every such append's page qualifies and only pages with engagement
 * of their own are read besides; with filters the pages are matched first.
 */
function pagesSql(p: Params, sites: readonly SiteRef[], from: number, to: number, filters: readonly FilterClause[]): string {
  const site = siteList(sites, p);
  const [start, end] = [p.add(from), p.add(to)];
  const own = `${CANONICAL} AND ${site} AND ts >= ${start} AND ts < ${end}${filterSql(filters, p)}`;
  const appends = `
    ap AS (
      SELECT site, parent_key AS id, min(parent_ts) AS ts, sum(duration) AS duration, max(scrolled) AS scrolled
      FROM events
      WHERE kind = 'append' AND NOT replay AND ${site} AND ts >= ${start} AND parent_ts >= ${start} AND parent_ts < ${end}
      GROUP BY site, parent_key
    )`;
  const totals = (pv: string) => `
    CASE WHEN ${pv}.duration IS NULL AND ap.duration IS NULL THEN NULL
         ELSE coalesce(${pv}.duration, 0) + coalesce(ap.duration, 0) END AS total_duration,
    greatest(${pv}.scrolled, ap.scrolled) AS scroll`;
  if (filters.length === 0) {
    return `${appends},
    own AS (SELECT site, id_key AS id, ts, duration, scrolled FROM events WHERE ${own} AND (duration IS NOT NULL OR scrolled IS NOT NULL)),
    page AS (
      SELECT coalesce(own.site, ap.site) AS site, coalesce(own.ts, ap.ts) AS ts, ${totals('own')}
      FROM own FULL OUTER JOIN ap ON ap.site = own.site AND ap.id = own.id
    )`;
  }
  return `${appends},
    pv AS (
      SELECT site, id_key AS id, ts, duration, scrolled FROM events
      WHERE ${own} AND (duration IS NOT NULL OR scrolled IS NOT NULL OR id_key IN (SELECT id FROM ap))
    ),
    page AS (SELECT pv.site, pv.ts, ${totals('pv')} FROM pv LEFT JOIN ap ON ap.site = pv.site AND ap.id = pv.id)`;
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

/** Canonical human pageviews: one row per id (the store marks the others as replays). */
const CANONICAL = `kind = 'pageview' AND NOT bot AND NOT replay`;

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
const UNIQUE_WITHOUT_HASH = 'count(*) FILTER (WHERE visitor_key IS NULL AND coalesce("unique", false))';
const VISITORS = `count(DISTINCT visitor_key) + ${UNIQUE_WITHOUT_HASH}`;

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

const DAY_MS = 86_400_000;

/**
 * Visitors per bucket from the `visitor_first` flags (the earliest canonical
 * pageview of each visitor hash on its site and UTC day, set by the writer).
 * A visitor seen in a bucket either has its first pageview there (a flag
 * counts it) or had it earlier on the same UTC day, and then was seen in the
 * "carried" part of the bucket: from its start to the next UTC midnight.
 * Only that part needs a distinct count, less the flags it holds, which the
 * flag count already has. Buckets starting at UTC midnight carry nothing.
 */
export function visitorsByFirstFlags(bounds: readonly number[]): string {
  const carriedUntil = bounds.slice(0, -1).map((start, i) => {
    const end = Number(bounds[i + 1]);
    return start % DAY_MS === 0 ? start : Math.min(end, (Math.floor(start / DAY_MS) + 1) * DAY_MS);
  });
  const carried = carriedUntil.length === 1 ? `ts < ${carriedUntil[0]}` : `ts < [${carriedUntil.join(', ')}][bucket + 1]`;
  return `count(*) FILTER (WHERE visitor_first)
    + count(DISTINCT visitor_key) FILTER (WHERE ${carried})
    - count(*) FILTER (WHERE visitor_first AND ${carried})
    + ${UNIQUE_WITHOUT_HASH}`;
}

/** Pages and referrers keep empty labels (direct traffic); every other list omits them. */
const keepsEmptyLabels = (dim: BreakdownDim) => dim === 'pages' || dim === 'referrers';

export class DuckDbReportStore implements ReportStore {
  constructor(private readonly db: ReadPool) {}

  /**
   * Per-bucket rows and the whole-range row come from separate scans (distinct
   * counts do not add up across buckets), and engagement from a third that
   * reads only pages that have any; all run side by side.
   */
  async traffic(scope: TrafficScope): Promise<TrafficRow[]> {
    const bounds = scope.boundaries;
    const perBucket = bounds.length > 2;
    const [buckets, totals, engagement] = await Promise.all([
      perBucket ? this.trafficCounts(scope, bounds) : Promise.resolve<Record<string, unknown>[]>([]),
      this.trafficCounts(scope, [bounds[0]!, bounds[bounds.length - 1]!]),
      this.trafficEngagement(scope),
    ]);
    const key = (site: unknown, bucket: unknown) => `${String(site)}\n${bucket === null || bucket === undefined ? '' : String(bucket)}`;
    const extra = new Map(engagement.map((r) => [key(r.site, r.bucket), r]));
    // Totals answer bucket 0 of their one bucket; with one bucket the whole range is that bucket.
    const rows: Record<string, unknown>[] = [...(perBucket ? buckets : totals), ...totals.map((r) => ({ ...r, bucket: null }))];
    return rows.map((r) => {
      const e = extra.get(key(r.site, r.bucket));
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

  /** Pageviews and visitors per site and bucket of `bounds`. */
  private trafficCounts(scope: TrafficScope, bounds: readonly number[]) {
    const p = new Params();
    const where = scopeSql(p, scope.sites, bounds[0]!, bounds[bounds.length - 1]!, scope.filters);
    // Unfiltered counts use the writer's first-of-day flags; a filter may drop a visitor's
    // first pageview, so filtered counts take the distinct count over every row.
    const visitors = scope.filters.length === 0 ? visitorsByFirstFlags(bounds) : VISITORS;
    return this.db.query(
      `SELECT site, bucket, count(*) AS pageviews, ${visitors} AS visitors
       FROM (SELECT *, ${bucketExpression(bounds)} AS bucket FROM events WHERE ${CANONICAL} AND ${where})
       GROUP BY ALL`,
      p.values,
    );
  }

  private trafficEngagement(scope: TrafficScope) {
    const p = new Params();
    const bounds = scope.boundaries;
    return this.db.query(
      `WITH ${pagesSql(p, scope.sites, bounds[0]!, bounds[bounds.length - 1]!, scope.filters)}
       SELECT site, ${bucketExpression(bounds)} AS bucket,
              median(total_duration) FILTER (WHERE total_duration >= 5) AS duration, avg(scroll) AS scrolled
       FROM page
       GROUP BY GROUPING SETS ((site, bucket), (site))`,
      p.values,
    );
  }

  async liveVisitors(sites: readonly SiteRef[], since: number): Promise<Map<string, number>> {
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
    const where = scopeSql(p, [scope], scope.from, scope.to, scope.filters);
    const entryOnly = dim === 'entry_pages' ? ' AND coalesce("unique", false)' : '';
    const keep = keepsEmptyLabels(dim) ? '' : ` AND coalesce(name, '') <> ''`;
    const sql = `
      SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors
      FROM (SELECT *, ${labelExpression(dim)} AS name FROM events WHERE ${CANONICAL} AND ${where}${entryOnly})
      WHERE true${keep}
      GROUP BY 1 ORDER BY value DESC, name ASC LIMIT ${p.add(limit)}`;
    const rows = await this.db.query(sql, p.values);
    return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors) }));
  }

  /** One scan: the lists are grouping sets of one aggregate, ranked and cut here. */
  async breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    const p = new Params();
    const where = scopeSql(p, [scope], scope.from, scope.to, scope.filters);
    const labels = dims.map((dim, i) => `${labelExpression(dim)} AS l${i}`).join(', ');
    const columns = dims.map((_, i) => `l${i}`);
    const rows = await this.db.query(
      `SELECT grouping(${columns.join(', ')}) AS unused, ${columns.join(', ')}, count(*) AS value, ${VISITORS} AS visitors
       FROM (SELECT *, ${labels} FROM events WHERE ${CANONICAL} AND ${where})
       GROUP BY GROUPING SETS (${columns.map((c) => `(${c})`).join(', ')})`,
      p.values,
    );
    const lists = dims.map(() => [] as BreakdownRow[]);
    for (const r of rows) {
      // grouping() sets a bit for each column left out of the set, the first column highest.
      const i = dims.findIndex((_, k) => (num(r.unused) & (1 << (dims.length - 1 - k))) === 0);
      const name = r[`l${i}`] === null || r[`l${i}`] === undefined ? '' : String(r[`l${i}`]);
      if (name === '' && !keepsEmptyLabels(dims[i]!)) continue;
      lists[i]!.push({ name, value: num(r.value), visitors: num(r.visitors) });
    }
    const ranked = lists.map((list) => list.sort((a, b) => b.value - a.value || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, limit));
    return Object.fromEntries(dims.map((dim, i) => [dim, ranked[i]])) as Record<D, BreakdownRow[]>;
  }

  private eventScope(scope: ReportScope, p: Params): string {
    return `kind = 'event' AND NOT bot AND NOT replay AND ${scopeSql(p, [scope], scope.from, scope.to, scope.filters)}`;
  }

  private async eventBreakdown(scope: ReportScope, limit: number): Promise<BreakdownRow[]> {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
       FROM events WHERE ${this.eventScope(scope, p)} AND coalesce(event, '') <> ''
       GROUP BY event ORDER BY value DESC, name ASC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors), last_seen: num(r.last_seen) }));
  }

  async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const p = new Params();
    const [r] = await this.db.query(
      `SELECT count(*) AS count, count(DISTINCT visitor_key) AS visitors FROM events WHERE ${this.eventScope(scope, p)} AND coalesce(event, '') <> ''`,
      p.values,
    );
    return { count: num(r?.count), visitors: num(r?.visitors) };
  }

  async livePages(scope: Omit<ReportScope, 'from' | 'to'> & { since: number }, limit: number) {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT path AS name, count(DISTINCT visitor_key) AS visitors FROM events
       WHERE ${CANONICAL} AND visitor_key IS NOT NULL AND ${siteList([scope], p)} AND ts >= ${p.add(scope.since)}${filterSql(scope.filters, p)}
       GROUP BY path ORDER BY visitors DESC, name ASC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map((r) => ({ name: String(r.name ?? ''), visitors: num(r.visitors) }));
  }

  async engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    const p = new Params();
    const d = durations.map((s, i) => `count(*) FILTER (WHERE total_duration >= ${Number(s)}) AS d${i}`);
    const s = scrolls.map((pct, i) => `count(*) FILTER (WHERE scroll >= ${Number(pct)}) AS s${i}`);
    const [r] = await this.db.query(
      `WITH ${pagesSql(p, [scope], scope.from, scope.to, scope.filters)}
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
