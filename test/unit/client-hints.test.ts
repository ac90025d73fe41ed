import { describe, expect, it } from 'vitest';
import { brandNames, browserFromBrands, browserFromHints, isGreaseBrand } from '#domain/ingest/client-hints.ts';

const CHROME_JSON = '[{"brand":"Chromium","version":"156"},{"brand":"Not A;Brand","version":"24"},{"brand":"Google Chrome","version":"156"}]';

describe('isGreaseBrand', () => {
  it.each(['Not A;Brand', 'Not.A/Brand', 'Not)A;Brand', 'Not_A Brand', 'Not:A-Brand', 'Not;A=Brand', 'Not?A_Brand', 'Not/A)Brand', ' Not A;Brand', '"Not\\\\A;Brand', 'Not A Brand', 'NOT-A.BRAND'])('%j is grease', (b) => {
    expect(isGreaseBrand(b)).toBe(true);
  });

  it.each(['Google Chrome', 'Chromium', 'Microsoft Edge', 'Nothing Brand', 'Opera'])('%j is not', (b) => {
    expect(isGreaseBrand(b)).toBe(false);
  });
});

describe('brandNames', () => {
  it('reads the JSON list the Simple Analytics script sends, plain or URL-encoded once more', () => {
    expect(brandNames(CHROME_JSON)).toEqual(['Chromium', 'Google Chrome']);
    expect(brandNames(encodeURIComponent(CHROME_JSON))).toEqual(['Chromium', 'Google Chrome']);
  });

  it('reads the tracker\'s Brand;version list, where a grease brand may hold a ;', () => {
    expect(brandNames('Not A;Brand;99,Chromium;124,Google Chrome;124')).toEqual(['Chromium', 'Google Chrome']);
    expect(brandNames('Not:A-Brand;8,Chromium;156')).toEqual(['Chromium']);
  });

  it('gives nothing for broken or foreign JSON', () => {
    for (const v of ['[{"brand":"Chromium"', '[1,2]', '[{"name":"Chromium"}]', '%5B%E0%A4%A', '[]']) expect(brandNames(v), v).toEqual([]);
  });
});

describe('browserFromBrands', () => {
  it.each<[string | null, string | null]>([
    [CHROME_JSON, 'Chrome'],
    [encodeURIComponent(CHROME_JSON), 'Chrome'],
    ['[{"brand":"Not)A;Brand","version":"99"},{"brand":"Microsoft Edge","version":"127"},{"brand":"Chromium","version":"127"}]', 'Edge'],
    ['[{"brand":"Opera","version":"110"},{"brand":"Chromium","version":"124"},{"brand":"Not.A/Brand","version":"24"}]', 'Opera'],
    ['[{"brand":"Brave","version":"124"},{"brand":"Chromium","version":"124"},{"brand":"Not-A.Brand","version":"99"}]', 'Brave'],
    // Legacy list; Chromium last, the specific brand wins whatever the order.
    ['Chromium;124,Google Chrome;124,Not A;Brand;99', 'Chrome'],
    ['Not:A-Brand;8,Chromium;156', 'Chromium'],
    // Nothing known: the user agent decides.
    ['[{"brand":"Not_A Brand","version":"8"}]', null],
    ['[{"brand":"Some New Browser","version":"1"},{"brand":"Not A;Brand","version":"8"}]', null],
    ['[{"brand":"Chromium"', null],
    ['garbage', null],
    ['', null],
    [null, null],
  ])('%j → %j', (brands, browser) => {
    expect(browserFromBrands(brands)).toBe(browser);
  });
});

describe('browserFromHints', () => {
  it('names Brave and DuckDuckGo by their flags over the brands', () => {
    expect(browserFromHints({ brands: CHROME_JSON, brave: true, duck: null })).toBe('Brave');
    expect(browserFromHints({ brands: null, brave: false, duck: true })).toBe('DuckDuckGo');
    expect(browserFromHints({ brands: CHROME_JSON, brave: false, duck: false })).toBe('Chrome');
    expect(browserFromHints({ brands: null })).toBeNull();
  });
});
