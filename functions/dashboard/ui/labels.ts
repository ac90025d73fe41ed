/**
 * How panel rows read (issue 40, part 3): country codes as names and
 * languages grouped by primary subtag, both named by `Intl.DisplayNames` in
 * the page's locale (the code itself when the browser has no name), the
 * label of visits without a source; and the full lists' search and paging
 * and the map's shading. Pure but for the browser's Intl data
 * (test/unit/dashboard-panels.test.ts).
 */

/** A breakdown row as the API gives it, with what the dashboard adds to show it. */
export interface PanelRow {
  /** The API's label: what a row click filters on. */
  name: string;
  visitors: number;
  /** Pageviews, entries, exits or events; absent in lists of visitors alone (the live panel's). */
  value?: number;
  /** What the row shows instead of `name` (a country's name, a language's). */
  label?: string;
  /** The rows a grouped row sums (a language's regional variants). */
  variants?: PanelRow[];
}

/** The label of visits without a source or referrer. */
export const DIRECT_NONE = 'Direct / None';

function displayNames(type: 'region' | 'language', locale?: string): Intl.DisplayNames | null {
  try {
    return new Intl.DisplayNames(locale ?? [], { type, fallback: 'code' });
  } catch {
    return null;
  }
}

/** `code`'s name as `names` gives it, or the code when it is none the browser knows (or malformed). */
function nameOf(names: Intl.DisplayNames | null, code: string): string {
  if (!names || code === '') return code;
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/** Country rows (ISO 3166-1 alpha-2) named in `locale` (the page's when absent): `DE` → "Germany". */
export function withCountryNames(rows: readonly PanelRow[], locale?: string): PanelRow[] {
  const names = displayNames('region', locale);
  return rows.map((r) => (r.name === '' ? r : { ...r, label: nameOf(names, r.name.toUpperCase()) }));
}

/** The primary subtag of a language tag, lower case: `en-GB` → `en`. */
export const primaryLanguage = (tag: string): string => tag.split(/[-_]/)[0]!.toLowerCase();

/**
 * Language rows grouped by primary subtag: `en`, `en-GB` and `en-US` as one row `en` named
 * "English", visitors and values summed (a visitor seldom has two languages in one period, so
 * the sum is close to the distinct count), the variants kept under it by visitors. Groups are
 * ordered by visitors, then value, then name.
 */
export function groupLanguages(rows: readonly PanelRow[], locale?: string): PanelRow[] {
  const names = displayNames('language', locale);
  const groups = new Map<string, PanelRow>();
  for (const r of rows) {
    const key = r.name === '' ? '' : primaryLanguage(r.name);
    const group = groups.get(key) ?? { name: key, label: key === '' ? undefined : nameOf(names, key), visitors: 0, value: 0, variants: [] };
    group.visitors += r.visitors;
    group.value = (group.value ?? 0) + (r.value ?? 0);
    group.variants!.push({ ...r, label: r.name === '' ? undefined : nameOf(names, r.name) });
    groups.set(key, group);
  }
  return [...groups.values()].sort(byVisitors).map((g) => ({ ...g, variants: g.variants!.sort(byVisitors) }));
}

/** Most visitors first, then the larger value, then the name: the order of the API's lists. */
export const byVisitors = (a: PanelRow, b: PanelRow): number => b.visitors - a.visitors || (b.value ?? 0) - (a.value ?? 0) || a.name.localeCompare(b.name);

/**
 * The sources with the visits that have none: `direct` (the count of the report filtered on an
 * empty source, which the API's list leaves out) as a row `''` shown as DIRECT_NONE, in its
 * place by visitors. Nothing is added when it is empty.
 */
export function withDirect(rows: readonly PanelRow[], direct: { visitors: number; pageviews: number } | null): PanelRow[] {
  if (!direct || (direct.visitors === 0 && direct.pageviews === 0) || rows.some((r) => r.name === '')) return [...rows];
  return [...rows, { name: '', label: DIRECT_NONE, visitors: direct.visitors, value: direct.pageviews }].sort(byVisitors);
}

/** A row counted from imported events alone: a value but no visitor (imports carry no visitor hash). */
export const importedOnly = (r: PanelRow): boolean => r.visitors === 0 && (r.value ?? 0) > 0;

/** Rows whose name or label contains `search` (any case); all rows for an empty search. */
export function searchRows(rows: readonly PanelRow[], search: string): PanelRow[] {
  const needle = search.trim().toLocaleLowerCase();
  if (needle === '') return [...rows];
  const hit = (r: PanelRow): boolean => [r.name, r.label ?? ''].some((s) => s.toLocaleLowerCase().includes(needle)) || (r.variants ?? []).some(hit);
  return rows.filter(hit);
}

/** A full list's page size. */
export const PAGE_SIZE = 50;

/** Rows `page` (from 0) of `rows`, `size` a page, and how many pages there are (at least one). */
export function pageOf<T>(rows: readonly T[], page: number, size = PAGE_SIZE): { rows: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const at = Math.min(Math.max(0, page), pages - 1);
  return { rows: rows.slice(at * size, (at + 1) * size), page: at, pages };
}

/** A shape's opacity: a floor so a single visitor shows, then linear in visitors up to the top country's. */
export const shade = (visitors: number, top: number): number => (visitors > 0 && top > 0 ? 0.2 + 0.8 * (visitors / top) : 0);
