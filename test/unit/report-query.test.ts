import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BREAKDOWN_COLUMNS,
  BREAKDOWN_DIMS,
  SCREEN_CLASSES,
  isBreakdownDim,
  parseBreakdownDim,
  parseBreakdownLimit,
  parseReportQuery,
  parseSummaryLimit,
} from '#domain/reports/query.ts';

describe('breakdown dimensions', () => {
  it('lists the dims of DESIGN.md §4 with the column each groups by', () => {
    expect([...BREAKDOWN_DIMS]).toEqual([
      'pages',
      'entry_pages',
      'exit_pages',
      'referrers',
      'sources',
      'utm_sources',
      'utm_mediums',
      'utm_campaigns',
      'utm_terms',
      'utm_contents',
      'countries',
      'devices',
      'browsers',
      'os',
      'languages',
      'screens',
      'events',
    ]);
    expect(BREAKDOWN_COLUMNS).toEqual({
      pages: 'path',
      entry_pages: 'path',
      exit_pages: 'path',
      referrers: 'referrer_host',
      sources: 'source',
      utm_sources: 'utm_source',
      utm_mediums: 'utm_medium',
      utm_campaigns: 'utm_campaign',
      utm_terms: 'utm_term',
      utm_contents: 'utm_content',
      countries: 'country',
      devices: 'device',
      browsers: 'browser',
      os: 'os',
      languages: 'language',
      screens: 'screen_width',
      events: 'event',
    });
  });

  it.each([...BREAKDOWN_DIMS])('%s parses', (dim) => {
    expect(isBreakdownDim(dim)).toBe(true);
    expect(parseBreakdownDim(dim)).toBe(dim);
  });

  it.each([undefined, '', 'Pages', 'page', 'country', ' pages', 'metadata', 'toString', '__proto__', 'hasOwnProperty'])('%j is unknown', (dim) => {
    expect(parseBreakdownDim(dim)).toBeNull();
  });
});

describe('SCREEN_CLASSES', () => {
  it('SCREEN_CLASSES are ordered by their bounds', () => {
    expect(SCREEN_CLASSES.map((c) => c.name)).toEqual(['Mobile', 'Tablet', 'Laptop', 'Desktop']);
    expect(SCREEN_CLASSES.map((c) => c.below).slice(0, 3)).toEqual([576, 992, 1440]);
  });
});

describe('parseBreakdownLimit', () => {
  it.each<[string | undefined, number]>([
    [undefined, 10],
    ['', 10],
    [' ', 10],
    ['x', 10],
    ['ten', 10],
    ['NaN', 10],
    ['Infinity', 10],
    ['1e400', 10],
    // Zero and below clamp to 1 (DESIGN.md §4: clamped to 1..1000), not the default.
    ['0', 1],
    ['0.9', 1],
    ['-0', 1],
    ['-3', 1],
    ['-0.5', 1],
    ['-99999', 1],
    ['1', 1],
    ['1.9', 1],
    ['7.99', 7],
    ['25', 25],
    [' 12 ', 12],
    ['1e2', 100],
    ['1000', 1000],
    ['1000.5', 1000],
    ['1001', 1000],
    ['99999999', 1000],
  ])('%j → %j', (raw, expected) => {
    expect(parseBreakdownLimit(raw)).toBe(expected);
  });
});

describe('parseSummaryLimit', () => {
  it.each<[string | undefined, number]>([
    [undefined, 5],
    ['', 5],
    ['x', 5],
    ['NaN', 5],
    ['1e400', 5],
    ['0', 5],
    ['0.9', 5],
    ['-0', 5],
    // Negative values are clamped to 1 (only zero and non-numeric give the default).
    ['-3', 1],
    ['-0.5', 1],
    ['1', 1],
    ['1.9', 1],
    ['3', 3],
    ['19.99', 19],
    ['20', 20],
    ['21', 20],
    ['1000', 20],
  ])('%j → %j', (raw, expected) => {
    expect(parseSummaryLimit(raw)).toBe(expected);
  });

  it('always lands in 1..20 as an integer; breakdown in 1..1000', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double().map(String), fc.integer().map(String)), (raw) => {
        const s = parseSummaryLimit(raw);
        expect(Number.isInteger(s) && s >= 1 && s <= 20).toBe(true);
        const b = parseBreakdownLimit(raw);
        expect(Number.isInteger(b) && b >= 1 && b <= 1000).toBe(true);
      }),
    );
  });
});

describe('parseReportQuery', () => {
  const now = 1_725_350_400; // 2024-09-03T08:00:00Z

  it('applies the defaults', () => {
    expect(parseReportQuery({}, now)).toEqual({ ok: true, range: { from: now - 7 * 86400, to: now }, tz: 'UTC', filters: [] });
  });

  it('reads UTC for a report that ignores tz, whatever tz says (the breakdown)', () => {
    expect(parseReportQuery({ tz: 'Mars/Olympus' }, now)).toEqual({ ok: false, error: 'invalid timezone' });
    expect(parseReportQuery({ tz: 'Mars/Olympus' }, now, { ignoreTz: true })).toEqual({ ok: true, range: { from: now - 7 * 86400, to: now }, tz: 'UTC', filters: [] });
  });

  it('parses every parameter and ignores others', () => {
    expect(
      parseReportQuery({ from: '1725000000.7', to: '1725100000', tz: 'Europe/Amsterdam', filter: 'page:%2Fpricing;country!NL', limit: 'x', dim: 'nope' }, now),
    ).toEqual({
      ok: true,
      range: { from: 1_725_000_000, to: 1_725_100_000 },
      tz: 'Europe/Amsterdam',
      filters: [
        { dim: 'page', op: 'eq', value: '/pricing' },
        { dim: 'country', op: 'neq', value: 'NL' },
      ],
    });
  });

  it('validates range, then timezone, then filter', () => {
    expect(parseReportQuery({ from: 'x', tz: 'Mars/Olympus', filter: 'bad' }, now)).toEqual({ ok: false, error: 'invalid range' });
    expect(parseReportQuery({ from: '10', to: '10', tz: 'Mars/Olympus' }, now)).toEqual({ ok: false, error: 'invalid range' });
    expect(parseReportQuery({ from: '0', to: String(400 * 86400 + 1) }, now)).toEqual({ ok: false, error: 'invalid range' });
    expect(parseReportQuery({ tz: 'Mars/Olympus', filter: 'bad' }, now)).toEqual({ ok: false, error: 'invalid timezone' });
    expect(parseReportQuery({ tz: '', filter: 'bad' }, now)).toEqual({ ok: false, error: 'invalid timezone' });
    expect(parseReportQuery({ filter: 'bad' }, now)).toEqual({ ok: false, error: 'invalid filter' });
    expect(parseReportQuery({ filter: 'page:%zz' }, now)).toEqual({ ok: false, error: 'invalid filter' });
  });

  it('accepts exactly 400 days and a filter with a trailing separator', () => {
    const r = parseReportQuery({ from: '0', to: String(400 * 86400), tz: 'Asia/Kolkata', filter: 'event:signup;' }, now);
    expect(r).toEqual({ ok: true, range: { from: 0, to: 400 * 86400 }, tz: 'Asia/Kolkata', filters: [{ dim: 'event', op: 'eq', value: 'signup' }] });
  });
});
