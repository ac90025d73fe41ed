/**
 * Which days of a report's read the store's daily rollups answer and which
 * its rows, decided once for every store that keeps rollups (DuckDB:
 * adapters/duckdb/rollups.ts; ClickHouse: adapters/clickhouse/rollups.ts), as
 * Plausible's TableDecider decides once which tables a query reads. A read
 * names what it needs (`RollupNeed`); a store states its rules
 * (`RollupPolicy`) and the days it has built; the plan follows. Stores only
 * execute plans: look up and build rollups, run the statements, and check
 * that no batch raced them.
 *
 * Sealed days are whole UTC days before the ones still open. Today is always
 * open; on DuckDB yesterday too, since every batch of today forgets
 * yesterday's rollups (it may repair the flags of the day before), and
 * rebuilding them after each would cost more than reading the day's rows.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import { formatFilter, hasVisitorClause, primaryLanguage, type FilterClause } from '#domain/reports/filter.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { createHash } from 'node:crypto';
import { SLOT_MS } from './sql/sealed-days.ts';

/**
 * What a read takes from the rollups: the labels of its filters' variant (breakdowns, lists, event
 * totals), their quarter-hour slots (traffic counts), or the site's engaged pages (engagement).
 */
export type RollupNeed = 'labels' | 'slots' | 'pages';

/** What a store builds, per day: labels with their slots, and pages. */
export type BuildKind = 'labels' | 'pages';

export const buildKindOf = (need: RollupNeed): BuildKind => (need === 'pages' ? 'pages' : 'labels');

/**
 * A read's scope: its sites, its range [from, to) in ms, its filters, and for slots its buckets'
 * boundaries. `variant` names the rollups of a report's own subject (subjectVariant), which it
 * counts itself; without it, its filters' variant's labels, slots or pages.
 */
export interface RollupRead {
  sites: readonly SiteRef[];
  from: number;
  to: number;
  filters: readonly FilterClause[];
  bounds?: readonly number[];
  variant?: string;
}

/**
 * The variant of a report's own rollups (a goal list, a funnel, an event's metadata key): per
 * day, its rows (name, value, visitors) over the site's own rows. Every rollup row carries its
 * variant, so what the subject counts is named by a digest; '#' starts no filter's variant.
 */
export const subjectVariant = (kind: string, counted: unknown): string =>
  `${SUBJECT_PREFIX}${kind}:${createHash('sha256').update(JSON.stringify(counted)).digest('base64url').slice(0, 22)}`;

/** The `dim` of a subject's rows among the stores' rollup labels (their variant names the subject). */
export const SUBJECT_DIM = 'subject';

/** What starts a subject's variant and no filter's (formatFilter starts with a dimension's name). */
export const SUBJECT_PREFIX = '#';

/**
 * What a report counts in rollups of its own (subjectVariant): its variant, and its
 * per-day rows over the site's own rows in some [start, end) ranges, columns `day`, `name`,
 * `value` and `visitors`. A build stores them for whole days; a read adds those of the rest.
 */
export interface SubjectRows<Sql> {
  readonly variant: string;
  rows(sql: Sql, site: SiteRef, ranges: readonly (readonly [number, number])[]): string;
}

/** Whether a variant is a report's own subject's, not a filter's. */
export const isSubjectVariant = (variant: string): boolean => variant.startsWith(SUBJECT_PREFIX);

/** How a store keeps its rollups: the rules a plan follows. */
export interface RollupPolicy {
  /** Days up to today whose rollups are never read (they are still written to), per kind. */
  openDays: Readonly<Record<BuildKind, number>>;
  /**
   * Whether a sealed day the range only cuts into is named: its rollups keep each row's ts (pages),
   * or the store reads its rows plainly with its build (ClickHouse).
   */
  cutDays(need: RollupNeed): boolean;
  /** Under filters no variant answers, labels and slots: `rows` reads every row; `own` names the site's own builds. */
  otherFilters: 'rows' | 'own';
}

/** A read the rollups take part in: one site's range, the builds it names (of `filters`' variant), and the sealed days it may name. */
export interface RollupPlan {
  site: SiteRef;
  from: number;
  to: number;
  need: RollupNeed;
  /** The filters whose variant's builds are read: the scope's, or none (the site's own). */
  filters: readonly FilterClause[];
  variant: string;
  /** Sealed UTC day numbers first..last of the range. */
  first: number;
  last: number;
}

/** The rollups of a site's own rows. */
export const UNFILTERED = '';

/**
 * Which rollups answer a scope's filters: the site's own ('') without filters; for one `dim:value`
 * clause (a click on a dashboard row), the rollups of the rows it keeps, named by the clause as
 * the `filter` parameter spells it; null for any other filter, which the rows answer.
 */
export function rollupVariant(filters: readonly FilterClause[]): string | null {
  if (filters.length === 0) return UNFILTERED;
  // A goal's conversions and an event's doers are sets of visitors no label keeps, and a goal's match may change.
  if (hasVisitorClause(filters)) return null;
  if (filters.length !== 1 || filters[0]!.op !== 'eq') return null;
  // `language:en` keeps every `en-*` tag (filter.ts primaryLanguage): not the rows an exact clause kept (`;` never occurs in one clause).
  return primaryLanguage(filters[0]!) === null ? formatFilter(filters) : `${formatFilter(filters)};primary`;
}

/** The variant of a scope the caller found rollups for. */
export function variantOf(filters: readonly FilterClause[]): string {
  const variant = rollupVariant(filters);
  if (variant === null) throw new Error('no rollup answers these filters');
  return variant;
}

/**
 * The plan of a read, or null when its rows answer it alone: several sites (their rollups are
 * per site), labels or slots under filters no variant answers on a store that reads rows for them,
 * a report's own subject under filters no variant answers (its rollups count the site's own rows,
 * or those of one `dim:value` clause), or no sealed day in the range.
 */
export function planRollups(read: RollupRead, need: RollupNeed, policy: RollupPolicy, nowMs: number): RollupPlan | null {
  const [site] = read.sites;
  if (!site || read.sites.length > 1 || hasVisitorClause(read.filters)) return null;
  if (read.variant !== undefined && rollupVariant(read.filters) === null) return null;
  // Pages keep the columns filters compare: the site's own answer every filter.
  const ofVariant = need !== 'pages' && rollupVariant(read.filters) !== null;
  if (need !== 'pages' && !ofVariant && policy.otherFilters === 'rows') return null;
  const days = sealedDays(read.from, read.to, nowMs, policy.openDays[buildKindOf(need)], policy.cutDays(need));
  if (!days) return null;
  const filters = ofVariant ? read.filters : [];
  return { site, from: read.from, to: read.to, need, filters, variant: read.variant ?? variantOf(filters), ...days };
}

/** The plan's days without a build among `built`. */
export function lackingDays(plan: Pick<RollupPlan, 'first' | 'last'>, built: Iterable<number>): number[] {
  const have = new Set(built);
  const lacking: number[] = [];
  for (let d = plan.first; d <= plan.last; d++) if (!have.has(d)) lacking.push(d);
  return lacking;
}

/** Which of the plan's days to build now, given those built (daysToBuild). */
export const daysToBuildFor = (plan: RollupPlan, built: Iterable<number>): number[] => daysToBuild(lackingDays(plan, built), plan);

/**
 * The days of the named builds (`built`, ascending, of `variant`) whose rollups answer the read;
 * the rows answer the rest. Pages: every one (a stored page keeps its ts). Labels and slots: only
 * builds of the read's own variant (a label keeps no row's other labels), whole days of the range,
 * and for slots the days whose slots can split its buckets (trafficDays).
 */
export function rolledDays(need: RollupNeed, built: readonly number[], read: Omit<RollupRead, 'sites'>, variant: string): number[] {
  if (need === 'pages') return [...built];
  if ((read.variant ?? rollupVariant(read.filters)) !== variant) return [];
  const whole = wholeDays(built, read);
  return need === 'slots' ? trafficDays(whole, read.bounds ?? [read.from, read.to]) : whole;
}

/**
 * The sealed UTC days of [fromMs, toMs) (all but the last `openDays` days up to now), or null when
 * there are none: the whole days, and with `partial` also the days the range only cuts into.
 */
export function sealedDays(fromMs: number, toMs: number, nowMs: number, openDays: number, partial = false): { first: number; last: number } | null {
  const first = partial ? Math.floor(fromMs / DAY_MS) : Math.ceil(fromMs / DAY_MS);
  const last = Math.min(partial ? Math.ceil(toMs / DAY_MS) - 1 : Math.floor(toMs / DAY_MS) - 1, Math.floor(nowMs / DAY_MS) - openDays);
  return first <= last ? { first, last } : null;
}

/**
 * Which of a read's days lacking a build to build now: all of them when one is a whole day of
 * [from, to), else none. A read of part of a day never pays for the whole day's build; the days a
 * range only cuts into are built along with its whole ones, and read from rows until then.
 */
export function daysToBuild(lacking: readonly number[], scope: { from: number; to: number }): number[] {
  return wholeDays(lacking, scope).length > 0 ? [...lacking] : [];
}

/** The days wholly inside [from, to): the ones a daily rollup of whole days answers. */
export const wholeDays = (days: readonly number[], scope: { from: number; to: number }) =>
  days.filter((d) => d * DAY_MS >= scope.from && (d + 1) * DAY_MS <= scope.to);

/** The named days whose slots can answer buckets with these boundaries: at most one boundary inside the day, on a slot's start. */
export function trafficDays(built: readonly number[], bounds: readonly number[]): number[] {
  return built.filter((day) => {
    const inside = bounds.filter((b) => b > day * DAY_MS && b < (day + 1) * DAY_MS);
    return inside.length === 0 || (inside.length === 1 && (inside[0] as number) % SLOT_MS === 0);
  });
}
