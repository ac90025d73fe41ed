/**
 * Port: the primitive aggregate queries reports are built from. Calendar and
 * timezone math, bucket lists, zero fill, previous ranges and forecasts stay
 * in functions/domain/reports; adapters (DuckDB, Timestream) only aggregate,
 * all by the same rules: the rows they count are those domain/rows/copies.ts
 * keeps, and filters come validated from the domain (parseFilter): a store
 * answers every clause it is given and never refuses one itself.
 * All times are Unix milliseconds; ranges are [from, to).
 */
import type { FilterClause } from '#domain/reports/filter.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { GoalMatch } from './goals.ts';

/** Breakdowns that group canonical pageviews by a label of their own (not events, not entry pages). */
export type LabelDim = Exclude<BreakdownDim, 'events' | 'entry_pages' | 'exit_pages'>;

/**
 * A site as reports read it: its hostname and its current registration
 * (domain/registration.ts). Rows of any other registration of the hostname
 * are never counted.
 */
export interface SiteRef {
  site: string;
  registration: string;
}

export interface TrafficScope {
  sites: readonly SiteRef[];
  /** Bucket boundaries b0 < b1 < … < bn: bucket i is [b_i, b_{i+1}). Totals are one bucket [from, to]. */
  boundaries: readonly number[];
  filters: readonly FilterClause[];
}

export interface TrafficRow {
  site: string;
  /** The bucket index, or null for the whole range (its visitors are distinct over the range). */
  bucket: number | null;
  pageviews: number;
  visitors: number;
  /** Median of summed page durations of at least 5 s; null when none. */
  duration: number | null;
  /** Mean of per-page maximum scroll; null when none was measured. */
  scrolled: number | null;
}

export interface ReportScope extends SiteRef {
  from: number;
  to: number;
  filters: readonly FilterClause[];
}

export interface BreakdownRow {
  name: string;
  value: number;
  visitors: number;
  /** Events only: the newest event in the range, Unix ms. */
  last_seen?: number;
}

export interface Engagement {
  /** Canonical pageviews with a measured duration. */
  measured: number;
  /** For each threshold in seconds: how many measured pages lasted at least that long. */
  durationAtLeast: Record<number, number>;
  /** Pages with a measured scroll, and how many reached each percentage. */
  scrollMeasured: number;
  scrollAtLeast: Record<number, number>;
}

export interface SummaryLists<D extends LabelDim> {
  lists: Record<D, BreakdownRow[]>;
  events: BreakdownRow[];
  totals: { count: number; visitors: number };
}

export interface ReportStore {
  /**
   * Canonical human pageviews and visitors per site and bucket, plus a
   * whole-range row per site (bucket null); buckets without rows are absent.
   */
  traffic(scope: TrafficScope): Promise<TrafficRow[]>;
  /** Distinct visitor hashes with a non-bot pageview or event since `since`, under `filters` (none: every one). */
  liveVisitors(sites: readonly SiteRef[], since: number, filters?: readonly FilterClause[]): Promise<Map<string, number>>;
  breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]>;
  /** Several label breakdowns of one scope (the summary's tech lists), each as `breakdown` answers it; a store may read them in one pass. */
  breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>>;
  eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }>;
  /**
   * The overview summary's lists of one scope: `breakdowns` of `dims`, the `events` breakdown
   * and the event totals, each as those methods answer them; a store may read them in one pass.
   */
  summaryLists<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<SummaryLists<D>>;
  /** Top pages by distinct visitors since `since`. */
  livePages(scope: Omit<ReportScope, 'from' | 'to'> & { since: number }, limit: number): Promise<{ name: string; visitors: number }[]>;
  engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement>;
  /** Per goal (in the order given) its conversions and converted visitor-days, and the scope's visitor-days (issue 37). */
  goalStats(scope: ReportScope, goals: readonly GoalMatch[]): Promise<{ visitors: number; goals: { conversions: number; visitors: number }[] }>;
  /** Visitor-days reaching each of the ordered steps (step 1 first). */
  funnel(scope: ReportScope, steps: readonly GoalMatch[]): Promise<number[]>;
  /** One event's metadata keys (`key` null), or one key's values, as rows: name, events (`value`) and visitors. */
  eventMetadata(scope: ReportScope, event: string, key: string | null, limit: number): Promise<BreakdownRow[]>;
  /**
   * Builds the site's own daily rollups of the sealed UTC days inside [from, to) that lack them, so
   * no report pays for them (an import's end, a day's end: issue 43); the number of days built. A
   * store without rollups builds none.
   */
  warmRollups(site: SiteRef, from: number, to: number): Promise<number>;
}
