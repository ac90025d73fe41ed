import { describe, expect, it } from 'vitest';
import { codeChallenge, parseStatsQuery, searchRowsOf, stateHash, syncWindows } from '#domain/search-console/search-console.ts';

describe('Search Console, pure parts', () => {
  it('makes the PKCE S256 challenge of RFC 7636, appendix B', () => {
    expect(codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(stateHash('a')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('pulls 486 days the first time, in windows of 31 days up to yesterday', () => {
    const w = syncWindows(null, '2026-11-29');
    expect(w[0]).toEqual({ startDate: '2025-07-31', endDate: '2025-08-30' });
    expect(w.at(-1)?.endDate).toBe('2026-11-28');
    expect(w.every((x, i) => i === 0 || x.startDate > (w[i - 1] as { endDate: string }).endDate)).toBe(true);
  });

  it('pulls the last three stored days again, and nothing when already through yesterday less three', () => {
    expect(syncWindows('2026-11-28', '2026-11-29')).toEqual([{ startDate: '2026-11-26', endDate: '2026-11-28' }]);
    expect(syncWindows('2026-11-20', '2026-11-29')).toEqual([{ startDate: '2026-11-18', endDate: '2026-11-28' }]);
    // Long unsynced: no further back than Google keeps.
    expect(syncWindows('2020-01-01', '2026-11-29')[0]?.startDate).toBe('2025-07-31');
  });

  it('reads the stats query: days, dimension and limit, with defaults', () => {
    expect(parseStatsQuery({}, '2026-11-29')).toEqual({ ok: true, from: '2026-11-02', to: '2026-11-29', dim: 'queries', limit: 100 });
    expect(parseStatsQuery({ from: '2026-01-01', to: '2026-01-31', dim: 'pages', limit: '5000' }, '2026-11-29')).toEqual({ ok: true, from: '2026-01-01', to: '2026-01-31', dim: 'pages', limit: 1000 });
    for (const bad of [{ from: '2026-02-30' }, { from: '2026-03-02', to: '2026-03-01' }, { from: '2024-01-01', to: '2026-01-01' }, { to: 'yesterday' }]) {
      expect(parseStatsQuery(bad, '2026-11-29')).toEqual({ ok: false, error: 'range' });
    }
    expect(parseStatsQuery({ dim: 'keywords' }, '2026-11-29')).toEqual({ ok: false, error: 'dimension' });
  });

  it("maps Google's rows: the date first, the dimension's key second", () => {
    expect(searchRowsOf('pages', [{ keys: ['2026-11-01', 'https://a.example/'], clicks: 1, impressions: 2, ctr: 0.5, position: 3 }])).toEqual([
      { date: '2026-11-01', dim: 'pages', name: 'https://a.example/', clicks: 1, impressions: 2, position: 3 },
    ]);
    expect(searchRowsOf('total', [{ keys: ['2026-11-01'], clicks: 1, impressions: 2, ctr: 0.5, position: 3 }])[0]?.name).toBe('');
  });
});
