/**
 * The browser named by client hints: the `brands` of User-Agent Client Hints,
 * in either wire form, and the `brave` / `duck` flags of browsers whose user
 * agent hides behind Chrome or Safari.
 *
 * Wire forms of `brands`:
 * - this service's tracker: `Brand;version,Brand;version`;
 * - the Simple Analytics script: `JSON.stringify(navigator.userAgentData.brands)`,
 *   `[{"brand":"Chromium","version":"124"},…]`, sometimes URL-encoded once more
 *   on the image routes.
 */
/** Known brands, most specific first, as ua-parser-js names the same browsers. `Chromium` says least. */
const KNOWN_BRANDS: ReadonlyMap<string, string> = new Map([
  ['brave', 'Brave'],
  ['duckduckgo', 'DuckDuckGo'],
  ['microsoft edge', 'Edge'],
  ['opera gx', 'Opera GX'],
  ['opera', 'Opera'],
  ['samsung internet', 'Samsung Internet'],
  ['yandex', 'Yandex'],
  ['yabrowser', 'Yandex'],
  ['vivaldi', 'Vivaldi'],
  ['google chrome', 'Chrome'],
  ['chromium', 'Chromium'],
]);
const RANK = new Map([...KNOWN_BRANDS.keys()].map((k, i) => [k, i]));

/**
 * GREASE brands Chromium adds so that servers do not match brand lists
 * exactly: "Not A;Brand", "Not.A/Brand", "Not)A;Brand", "Not_A Brand",
 * "Not:A-Brand"… ("Not", punctuation, maybe "A" and more punctuation, "Brand").
 */
export const isGreaseBrand = (brand: string): boolean => /not[^a-z0-9]+(a[^a-z0-9]*)?brand/i.test(brand);

/** Brand names of the JSON form (an array of `{brand}`); null when the text is not that form. */
function jsonBrandNames(text: string): string[] | null {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(list)) return null;
  return list.flatMap((b: unknown) => (b && typeof b === 'object' && typeof (b as { brand?: unknown }).brand === 'string' ? [(b as { brand: string }).brand] : []));
}

/**
 * Brand names of the `Brand;version` list. A GREASE brand may itself hold a
 * `;` ("Not A;Brand;99"), so the version is what follows the last one.
 */
const listBrandNames = (text: string): string[] =>
  text.split(',').map((entry) => {
    const cut = entry.lastIndexOf(';');
    return cut < 0 ? entry : entry.slice(0, cut);
  });

/** The brand names in a `brands` value of either form (URL-encoded once more or not). */
export function brandNames(brands: string): string[] {
  let text = brands.trim();
  if (/^%5b/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return [];
    }
  }
  const names = text.startsWith('[') ? (jsonBrandNames(text) ?? []) : listBrandNames(text);
  return names.map((n) => n.trim()).filter((n) => n && !isGreaseBrand(n));
}

/** The most specific known browser among the brands, or null when none is known (the user agent decides then). */
export function browserFromBrands(brands: string | null): string | null {
  if (!brands) return null;
  let best: string | null = null;
  for (const name of brandNames(brands)) {
    const key = name.toLowerCase();
    if (RANK.has(key) && (best === null || RANK.get(key)! < RANK.get(best)!)) best = key;
  }
  return best === null ? null : KNOWN_BRANDS.get(best)!;
}

export interface BrowserHints {
  brands: string | null;
  /** Brave's own flag (`navigator.brave`): its brands and user agent may say Chrome. */
  brave?: boolean | null;
  /** DuckDuckGo's flag: its user agent says Safari or Chrome. */
  duck?: boolean | null;
}

/** The browser client hints name, or null to leave it to the user-agent parse; `ofBrands` reads the brands (the collector's is cached). */
export function browserFromHints(hints: BrowserHints, ofBrands: (brands: string) => string | null = browserFromBrands): string | null {
  if (hints.brave) return 'Brave';
  if (hints.duck) return 'DuckDuckGo';
  return hints.brands ? ofBrands(hints.brands) : null;
}
