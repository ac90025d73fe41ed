/** The dashboard's panel rows (issue 40, part 3): number format, names, language groups, Direct / None, search and paging. */
import { describe, expect, it } from 'vitest';
import { formatNumber, formatPercentOf } from '#dashboard/ui/format.ts';
import { DIRECT_NONE, groupLanguages, importedOnly, pageOf, searchRows, shade, withCountryNames, withDirect } from '#dashboard/ui/labels.ts';

describe('dashboard number format', () => {
  it('shows counts in full with grouping below a million, compact from a million', () => {
    expect([formatNumber(0), formatNumber(12_400), formatNumber(28_106), formatNumber(999_999)]).toEqual(['0', '12,400', '28,106', '999,999']);
    expect([formatNumber(1_000_000), formatNumber(1_250_000), formatNumber(-2_000_000)]).toEqual(['1M', '1.3M', '-2M']);
  });

  it('gives a share with one decimal, and none of nothing', () => {
    expect(formatPercentOf(124, 1000)).toBe('12.4%');
    expect(formatPercentOf(1, 3)).toBe('33.3%');
    expect(formatPercentOf(5, 0)).toBeNull();
  });
});

describe('dashboard panel rows', () => {
  it('names countries in the locale and keeps codes it has no name for', () => {
    const rows = withCountryNames(
      [
        { name: 'DE', visitors: 3 },
        { name: 'fr', visitors: 2 },
        { name: '', visitors: 1 },
        { name: 'not a code', visitors: 1 },
      ],
      'en-US',
    );
    expect(rows.map((r) => r.label)).toEqual(['Germany', 'France', undefined, 'NOT A CODE']);
    expect(withCountryNames([{ name: 'DE', visitors: 1 }], 'de')[0]!.label).toBe('Deutschland');
    expect(rows[0]!.name).toBe('DE');
  });

  it('groups languages by primary subtag, summed, named, variants by visitors', () => {
    const groups = groupLanguages(
      [
        { name: 'de-DE', visitors: 5, value: 9 },
        { name: 'en-US', visitors: 4, value: 6 },
        { name: 'en', visitors: 3, value: 3 },
        { name: 'en-GB', visitors: 2, value: 2 },
      ],
      'en-US',
    );
    expect(groups.map((g) => [g.name, g.label, g.visitors, g.value])).toEqual([
      ['en', 'English', 9, 11],
      ['de', 'German', 5, 9],
    ]);
    expect(groups[0]!.variants!.map((v) => [v.name, v.label])).toEqual([
      ['en-US', 'American English'],
      ['en', 'English'],
      ['en-GB', 'British English'],
    ]);
  });

  it('adds the Direct / None row in its place by visitors, and nothing when there is no direct visit', () => {
    const rows = [
      { name: 'Google', visitors: 10, value: 12 },
      { name: 'Bing', visitors: 2, value: 2 },
    ];
    const shown = withDirect(rows, { visitors: 5, pageviews: 7 });
    expect(shown.map((r) => [r.name, r.label ?? r.name, r.visitors, r.value])).toEqual([
      ['Google', 'Google', 10, 12],
      ['', DIRECT_NONE, 5, 7],
      ['Bing', 'Bing', 2, 2],
    ]);
    expect(withDirect(rows, { visitors: 0, pageviews: 0 })).toEqual(rows);
    expect(withDirect(rows, null)).toEqual(rows);
  });

  it('marks rows counted from imported events alone', () => {
    expect([importedOnly({ name: 'signup', visitors: 0, value: 4 }), importedOnly({ name: 'x', visitors: 0, value: 0 }), importedOnly({ name: 'y', visitors: 1, value: 4 })]).toEqual([true, false, false]);
  });

  it('searches names, labels and variants in any case', () => {
    const rows = [
      { name: 'DE', label: 'Germany', visitors: 1 },
      { name: '/pricing', visitors: 1 },
      { name: 'en', label: 'English', visitors: 1, variants: [{ name: 'en-GB', visitors: 1 }] },
    ];
    expect(searchRows(rows, 'GERM').map((r) => r.name)).toEqual(['DE']);
    expect(searchRows(rows, 'pric').map((r) => r.name)).toEqual(['/pricing']);
    expect(searchRows(rows, 'en-gb').map((r) => r.name)).toEqual(['en']);
    expect(searchRows(rows, '  ')).toHaveLength(3);
  });

  it('pages rows 50 at a time, clamping the page asked for', () => {
    const rows = Array.from({ length: 120 }, (_, i) => i);
    expect(pageOf(rows, 0)).toMatchObject({ page: 0, pages: 3, rows: rows.slice(0, 50) });
    expect(pageOf(rows, 2).rows).toEqual(rows.slice(100));
    expect(pageOf(rows, 9).page).toBe(2);
    expect(pageOf([], 0)).toEqual({ rows: [], page: 0, pages: 1 });
  });

  it('shades a country by its visitors of the top country’s, none without visitors', () => {
    expect([shade(0, 10), shade(10, 10)]).toEqual([0, 1]);
    expect(shade(5, 10)).toBeCloseTo(0.6);
    expect(shade(1, 1000)).toBeGreaterThan(0.2);
  });
});
