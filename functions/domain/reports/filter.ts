import type { GoalMatch } from '#ports/goals.ts';

/**
 * Report filter grammar (DESIGN.md §4): clauses joined by `;`, each
 * `dim:value` (equals), `dim!value` (not equals) or `dim~value` (contains),
 * values URL-encoded. Anything else is 400 `invalid filter`.
 */

export const FILTER_DIMS = [
  'page',
  'referrer',
  'source',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'country',
  'device',
  'browser',
  'os',
  'language',
  'event',
] as const;

export type FilterDim = (typeof FILTER_DIMS)[number];
export type FilterOp = 'eq' | 'neq' | 'contains';

/**
 * Where a visitor clause (goal, event) finds the visitors it keeps: the rows of `sites` in
 * [from, to) ms, the read's own range (withGoalWindow). A goal clause names its site in `goal`.
 */
export interface VisitorWindow {
  from: number;
  to: number;
  sites?: readonly SiteOf[];
}

/** A site as reads name it (ports/report-store.ts SiteRef): its hostname and current registration. */
type SiteOf = { site: string; registration: string };

/**
 * A clause on a row's label; an `event` clause keeps instead the rows of the visitor-days that
 * did (`:`, `~`) or did not (`!`) a matching event within its `window` (as a goal clause does).
 */
export type LabelClause = { dim: FilterDim; op: FilterOp; value: string; window?: VisitorWindow };

/**
 * `goal:<id>` (issue 37): the rows of visitor-days that converted on the goal. The handler
 * names the goal's match and site (`goal`), and each read the range its conversions count in
 * (`window`, reports/reports.ts: the read's own range); only `:` (equals) is offered.
 */
export interface GoalClause {
  dim: 'goal';
  op: 'eq';
  value: string;
  goal?: GoalMatch & { site: string; registration: string };
  window?: VisitorWindow;
}

export type FilterClause = LabelClause | GoalClause;

export const GOAL_DIM = 'goal';

export const isGoalClause = (f: FilterClause): f is GoalClause => f.dim === GOAL_DIM;
export const hasGoalClause = (filters: readonly FilterClause[]) => filters.some(isGoalClause);

/** The event dimension, whose clauses keep visitors (not rows), as goal clauses do. */
export const EVENT_DIM = 'event';

/** Clauses that keep the rows of a set of visitor-days (goals, events) rather than rows by their own label. */
export const isVisitorClause = (f: FilterClause): boolean => f.dim === GOAL_DIM || f.dim === EVENT_DIM;
export const hasVisitorClause = (filters: readonly FilterClause[]) => filters.some(isVisitorClause);

/**
 * The clauses with each visitor clause's visitors found among the rows of `sites` in [from, to) ms
 * (a goal's conversions, an event's doers): what one read of that range is given.
 */
export const withGoalWindow = (filters: readonly FilterClause[], sites: readonly SiteOf[], from: number, to: number): FilterClause[] =>
  filters.map((f) => (isVisitorClause(f) ? { ...f, window: { from, to, sites } } : f));

/**
 * `language:en` (a bare primary subtag, 2–3 letters) means every tag of that language: `en`, `en-GB`…
 * case-insensitively. The primary subtag, lower-cased, when the clause's value is one; null otherwise
 * (a value with a region stays exact).
 */
export function primaryLanguage(f: FilterClause): string | null {
  if (f.dim !== 'language' || f.op === 'contains' || !/^[A-Za-z]{2,3}$/.test(f.value)) return null;
  return f.value.toLowerCase();
}

/** Event-store column each filter dimension compares (EventRow field names). */
export const FILTER_COLUMNS: Readonly<Record<FilterDim, string>> = {
  page: 'path',
  referrer: 'referrer_host',
  source: 'source',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
  utm_term: 'utm_term',
  utm_content: 'utm_content',
  country: 'country',
  device: 'device',
  browser: 'browser',
  os: 'os',
  language: 'language',
  event: 'event',
};

/** Every column some filter compares, once each (the page rollups keep them all). */
export const FILTERED_COLUMNS = [...new Set(Object.values(FILTER_COLUMNS))];

const OPERATORS: Record<string, FilterOp> = { ':': 'eq', '!': 'neq', '~': 'contains' };
const SYMBOLS: Record<FilterOp, string> = { eq: ':', neq: '!', contains: '~' };

/** The `filter` query value of clauses (what parseFilter reads back), values URL-encoded. */
export function formatFilter(filters: readonly FilterClause[]): string {
  return filters.map((f) => `${f.dim}${SYMBOLS[f.op]}${encodeURIComponent(f.value)}`).join(';');
}

export function isFilterDim(value: string): value is FilterDim {
  return Object.hasOwn(FILTER_COLUMNS, value);
}

/**
 * Parses the `filter` query value. Undefined or empty gives no clauses; null
 * means invalid (400 `invalid filter`). The operator is the first `:`, `!` or
 * `~` in a clause, so the value may contain any of them; the dimension must be
 * one of FILTER_DIMS (case-sensitive, no surrounding spaces); the value is
 * URL-decoded (`%3B` for a literal `;`), and a malformed escape is invalid.
 * Empty clauses (`a:b;` or `a:b;;c:d`) are skipped. An empty value is allowed.
 */
/**
 * Clauses joined by `;`, each a dimension, an operator character and a URL-encoded value: null when
 * one has no operator, an operator `operators` does not name, a dimension `isDim` refuses or a value
 * that does not decode. The web reports' filter and the API reports' share it.
 */
export function parseClauses<D extends string, O>(raw: string | undefined, operators: Readonly<Record<string, O>>, isDim: (dim: string) => dim is D): { dim: D; op: O; value: string }[] | null {
  if (raw === undefined || raw === '') return [];
  const clauses: { dim: D; op: O; value: string }[] = [];
  for (const part of raw.split(';')) {
    if (part === '') continue;
    const at = part.search(/[:!~]/);
    if (at <= 0) return null; // no operator, or an empty dimension
    const dim = part.slice(0, at);
    const op = operators[part.charAt(at)];
    if (op === undefined || !isDim(dim)) return null;
    try {
      clauses.push({ dim, op, value: decodeURIComponent(part.slice(at + 1)) });
    } catch {
      return null;
    }
  }
  return clauses;
}

/** The `filter` of the web reports: label clauses, and `goal:<id>` (equals only). */
export function parseFilter(raw: string | undefined): FilterClause[] | null {
  const clauses = parseClauses(raw, OPERATORS, (dim): dim is FilterDim | typeof GOAL_DIM => dim === GOAL_DIM || isFilterDim(dim));
  if (clauses === null) return null;
  const out: FilterClause[] = [];
  for (const c of clauses) {
    if (c.dim !== GOAL_DIM) out.push({ dim: c.dim, op: c.op, value: c.value });
    else if (c.op === 'eq' && c.value !== '') out.push({ dim: GOAL_DIM, op: 'eq', value: c.value });
    else return null;
  }
  return out;
}
