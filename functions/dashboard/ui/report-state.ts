/**
 * A report view's state as its URL keeps it (so a view can be bookmarked and
 * shared): the period (a preset, or custom calendar days), the timezone of
 * those days, and the API's filter string. Pure: the range math is the
 * server's own (domain/reports/time.ts), so the days match its buckets.
 */
import { FILTER_DIMS, formatFilter, GOAL_DIM, parseFilter, type FilterClause } from '#domain/reports/filter.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import { INTERVALS, isValidTimezone, localParts, zonedToUnix, type Interval, type Range } from '#domain/reports/time.ts';

export const PERIODS = ['today', 'yesterday', '7d', '30d', 'month', '12mo', 'custom'] as const;
export type Period = (typeof PERIODS)[number];
export const DEFAULT_PERIOD: Period = '30d';

export const PERIOD_LABELS: Record<Period, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  month: 'This month',
  '12mo': 'Last 12 months',
  custom: 'Custom range',
};

/** A calendar day, YYYY-MM-DD. */
export type Day = string;

export interface ReportState {
  period: Period;
  /** Custom range: first and last day (inclusive), in `tz`. */
  from: Day | null;
  to: Day | null;
  tz: string;
  filters: FilterClause[];
  /** The chart's buckets when chosen; otherwise the period decides (chartInterval). */
  interval?: Interval | null;
  /** Each panel's chosen tab when not its first (`sources` → `utm_campaigns`); absent when none is. */
  tabs?: Readonly<Record<string, string>>;
}

/** A panel or dimension name in the `tabs` param: lower-case letters and underscores. */
const TAB_NAME = /^[a-z_]{1,40}$/;

/** `tabs=sources:utm_campaigns,devices:browsers`: each well-formed pair, the last one per panel; others are dropped. */
export function parseTabs(raw: string | null): Record<string, string> {
  const tabs: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const [panel, dim, extra] = pair.split(':');
    if (panel && dim && extra === undefined && TAB_NAME.test(panel) && TAB_NAME.test(dim)) tabs[panel] = dim;
  }
  return tabs;
}

/** The `tabs` param of a state's tabs, panels in name order (one URL per view); '' when none. */
export const formatTabs = (tabs: Readonly<Record<string, string>>): string =>
  Object.keys(tabs)
    .sort()
    .map((panel) => `${panel}:${tabs[panel]}`)
    .join(',');

/** The state with `panel` showing `dim`; `dim` null (the panel's first tab) drops the panel from the URL. */
export function withTab(state: ReportState, panel: string, dim: string | null): ReportState {
  const { [panel]: _dropped, ...rest } = state.tabs ?? {};
  const tabs = dim === null ? rest : { ...rest, [panel]: dim };
  const { tabs: _old, ...others } = state;
  return Object.keys(tabs).length > 0 ? { ...others, tabs } : others;
}

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The API's longest range (spec part 4: at most 400 days). */
export const MAX_DAYS = 400;

function parseDay(day: string | null): { y: number; m: number; d: number } | null {
  const match = day === null ? null : DAY_PATTERN.exec(day);
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const check = new Date(Date.UTC(y, m - 1, d));
  return check.getUTCMonth() === m - 1 && check.getUTCDate() === d ? { y, m, d } : null;
}

/** The day `n` days after `day` (calendar arithmetic, no timezone involved). */
export function addDays(day: Day, n: number): Day {
  const p = parseDay(day);
  if (!p) throw new RangeError(`not a day: ${day}`);
  return new Date(Date.UTC(p.y, p.m - 1, p.d + n)).toISOString().slice(0, 10);
}

/** Today in `tz` at `nowSeconds`. */
export function today(tz: string, nowSeconds: number): Day {
  const p = localParts(tz, nowSeconds);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

const startOf = (tz: string, day: Day): number => {
  const p = parseDay(day) as { y: number; m: number; d: number };
  return zonedToUnix(tz, p.y, p.m, p.d);
};

/** Whole days between two days, both counted. */
export const daysBetween = (from: Day, to: Day): number => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;

/** First and last day (inclusive) the state covers at `nowSeconds`. */
export function stateDays(state: ReportState, nowSeconds: number): { from: Day; to: Day } {
  const t = today(state.tz, nowSeconds);
  switch (state.period) {
    case 'today':
      return { from: t, to: t };
    case 'yesterday':
      return { from: addDays(t, -1), to: addDays(t, -1) };
    case '7d':
      return { from: addDays(t, -6), to: t };
    case '30d':
      return { from: addDays(t, -29), to: t };
    case 'month':
      return { from: `${t.slice(0, 8)}01`, to: t };
    case '12mo':
      return { from: addDays(t, -364), to: t };
    case 'custom':
      return { from: state.from as Day, to: state.to as Day };
  }
}

/** The API range: from the first day's start to the next day's after the last, in `tz` (Unix seconds). */
export function stateRange(state: ReportState, nowSeconds: number): Range {
  const { from, to } = stateDays(state, nowSeconds);
  return { from: startOf(state.tz, from), to: startOf(state.tz, addDays(to, 1)) };
}

/** The browser's timezone, or UTC when it names none the API knows. */
export function browserTimezone(): string {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return tz && isValidTimezone(tz) ? tz : 'UTC';
}

/**
 * The state in a URL's query. Anything unreadable falls back to the default
 * (a bad bookmark shows the last 30 days rather than an error): an unknown
 * period, a custom range that is not two valid days in order within 400 days,
 * an unknown timezone, a filter the API would refuse.
 */
export function readState(search: URLSearchParams, defaultTz: string): ReportState {
  const tzParam = search.get('tz');
  const tz = tzParam && isValidTimezone(tzParam) ? tzParam : defaultTz;
  const filters = parseFilter(search.get('filter') ?? undefined) ?? [];
  let period = (PERIODS as readonly string[]).includes(search.get('period') ?? '') ? (search.get('period') as Period) : DEFAULT_PERIOD;
  const from = search.get('from');
  const to = search.get('to');
  const customOk = parseDay(from) !== null && parseDay(to) !== null && (from as Day) <= (to as Day) && daysBetween(from as Day, to as Day) <= MAX_DAYS;
  if (period === 'custom' && !customOk) period = DEFAULT_PERIOD;
  const interval = (INTERVALS as readonly string[]).includes(search.get('interval') ?? '') ? (search.get('interval') as Interval) : null;
  const tabs = parseTabs(search.get('tabs'));
  const state: ReportState = { period, from: period === 'custom' ? from : null, to: period === 'custom' ? to : null, tz, filters, interval };
  return Object.keys(tabs).length > 0 ? { ...state, tabs } : state;
}

/** The query string of a state (without `?`): only what differs from the defaults. */
export function writeState(state: ReportState, defaultTz: string): string {
  const q = new URLSearchParams();
  if (state.period !== DEFAULT_PERIOD) q.set('period', state.period);
  if (state.period === 'custom' && state.from && state.to) {
    q.set('from', state.from);
    q.set('to', state.to);
  }
  if (state.tz !== defaultTz) q.set('tz', state.tz);
  if (state.filters.length > 0) q.set('filter', formatFilter(state.filters));
  if (state.interval) q.set('interval', state.interval);
  const tabs = formatTabs(state.tabs ?? {});
  if (tabs) q.set('tabs', tabs);
  return q.toString();
}

/**
 * The chart's buckets: the chosen interval, else weeks past 31 days and months past 92 (a year
 * reads as 12 months, not 365 points), else the API's own (hours up to 48 h, days).
 */
export function chartInterval(state: ReportState, nowSeconds: number): Interval | null {
  if (state.interval) return state.interval;
  const { from, to } = stateDays(state, nowSeconds);
  const days = daysBetween(from, to);
  return days > 92 ? 'month' : days > 31 ? 'week' : null;
}

export const INTERVAL_LABELS: Record<Interval, string> = { day: 'Days', week: 'Weeks', month: 'Months' };

/** The report query of the API for a state: from, to, tz and filter. */
export function apiQuery(state: ReportState, nowSeconds: number): URLSearchParams {
  const range = stateRange(state, nowSeconds);
  const q = new URLSearchParams({ from: String(range.from), to: String(range.to), tz: state.tz });
  if (state.filters.length > 0) q.set('filter', formatFilter(state.filters));
  return q;
}

/** The state with `clause` added; an existing clause on the same dimension is replaced (a dimension has one value). */
export function withFilter(state: ReportState, clause: FilterClause): ReportState {
  return { ...state, filters: [...state.filters.filter((f) => f.dim !== clause.dim), clause] };
}

export function withoutFilter(state: ReportState, dim: FilterClause['dim']): ReportState {
  return { ...state, filters: state.filters.filter((f) => f.dim !== dim) };
}

export const FILTER_LABELS: Record<FilterClause['dim'], string> = {
  goal: 'Converted on goal',
  page: 'Page',
  referrer: 'Referrer',
  source: 'Source',
  utm_source: 'UTM source',
  utm_medium: 'UTM medium',
  utm_campaign: 'UTM campaign',
  utm_term: 'UTM term',
  utm_content: 'UTM content',
  country: 'Country',
  device: 'Device',
  browser: 'Browser',
  os: 'OS',
  language: 'Language',
  event: 'Event',
};

/** The filter menu's dimensions, in the grammar's order; `goal` only where the site's goals are known (owners). */
export const MENU_DIMS: readonly FilterClause['dim'][] = [...FILTER_DIMS, GOAL_DIM];

/** The breakdown whose rows suggest a dimension's values (a goal's are the site's goals). */
export const SUGGESTION_DIMS: Record<Exclude<FilterClause['dim'], 'goal'>, BreakdownDim> = {
  page: 'pages',
  referrer: 'referrers',
  source: 'sources',
  utm_source: 'utm_sources',
  utm_medium: 'utm_mediums',
  utm_campaign: 'utm_campaigns',
  utm_term: 'utm_terms',
  utm_content: 'utm_contents',
  country: 'countries',
  device: 'devices',
  browser: 'browsers',
  os: 'os',
  language: 'languages',
  event: 'events',
};

/** The suggestions of a dimension's values: the API's query with the other dimensions' filters (this one's would hide its other values). */
export function suggestionQuery(state: ReportState, dim: FilterClause['dim'], nowSeconds: number): string {
  return apiQuery(withoutFilter(state, dim), nowSeconds).toString();
}

/** The names that contain `typed` (any case), in their order, at most `max`. */
export function matchingNames(names: readonly string[], typed: string, max = 10): string[] {
  const needle = typed.trim().toLowerCase();
  return names.filter((n) => n.toLowerCase().includes(needle)).slice(0, max);
}

/** The state with the clause on `replacing` (a chip being edited) swapped for `clause`, kept in its place. */
export function replacingFilter(state: ReportState, replacing: FilterClause['dim'] | null, clause: FilterClause): ReportState {
  const at = state.filters.findIndex((f) => f.dim === replacing);
  if (at < 0) return withFilter(state, clause);
  const rest = state.filters.filter((f, i) => i === at || f.dim !== clause.dim);
  return { ...state, filters: rest.map((f) => (f.dim === replacing ? clause : f)) };
}

export const clearFilters = (state: ReportState): ReportState => ({ ...state, filters: [] });
