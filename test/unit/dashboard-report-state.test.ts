import { describe, expect, it } from 'vitest';
import { addDays, apiQuery, chartInterval, clearFilters, matchingNames, readState, replacingFilter, stateRange, suggestionQuery, withFilter, withoutFilter, withTab, writeState, type ReportState } from '#dashboard/ui/report-state.ts';
import { formatFilter, parseFilter } from '#domain/reports/filter.ts';

// 2026-03-29 10:00 UTC: the day Europe/Berlin moves its clocks forward (23 hours long).
const NOW = Date.UTC(2026, 2, 29, 10) / 1000;
const base: ReportState = { period: '30d', from: null, to: null, tz: 'UTC', filters: [], interval: null };

describe('dashboard report state', () => {
  it('presets cover whole days in the timezone, today included', () => {
    expect(stateRange({ ...base, period: 'today' }, NOW)).toEqual({ from: Date.UTC(2026, 2, 29) / 1000, to: Date.UTC(2026, 2, 30) / 1000 });
    expect(stateRange({ ...base, period: '7d' }, NOW)).toEqual({ from: Date.UTC(2026, 2, 23) / 1000, to: Date.UTC(2026, 2, 30) / 1000 });
    expect(stateRange({ ...base, period: '30d' }, NOW).from).toBe(Date.UTC(2026, 1, 28) / 1000);
    expect(stateRange({ ...base, period: 'month' }, NOW).from).toBe(Date.UTC(2026, 2, 1) / 1000);
    expect(stateRange({ ...base, period: 'yesterday' }, NOW)).toEqual({ from: Date.UTC(2026, 2, 28) / 1000, to: Date.UTC(2026, 2, 29) / 1000 });
    const year = stateRange({ ...base, period: '12mo' }, NOW);
    expect((year.to - year.from) / 86_400).toBe(365);
  });

  it('days start at local midnight: a day with a clock change is 23 hours long', () => {
    const berlin = stateRange({ ...base, period: 'today', tz: 'Europe/Berlin' }, NOW);
    expect(berlin).toEqual({ from: Date.UTC(2026, 2, 28, 23) / 1000, to: Date.UTC(2026, 2, 29, 22) / 1000 });
  });

  it('a custom range runs from the first day to the end of the last', () => {
    const state = readState(new URLSearchParams('period=custom&from=2026-01-30&to=2026-02-02&tz=Asia/Tokyo'), 'UTC');
    expect(stateRange(state, NOW)).toEqual({ from: Date.UTC(2026, 0, 29, 15) / 1000, to: Date.UTC(2026, 1, 2, 15) / 1000 });
  });

  it('a URL that cannot be read gives the default view', () => {
    for (const q of ['period=nope', 'period=custom&from=2026-02-30&to=2026-03-01', 'period=custom&from=2026-03-02&to=2026-03-01', 'period=custom&from=2024-01-01&to=2026-01-01']) {
      expect(readState(new URLSearchParams(q), 'UTC')).toEqual(base);
    }
    expect(readState(new URLSearchParams('tz=Not/AZone&filter=bogus'), 'Europe/Paris')).toEqual({ ...base, tz: 'Europe/Paris' });
  });

  it('writes only what differs from the default, and reads back what it wrote', () => {
    expect(writeState(base, 'UTC')).toBe('');
    const state: ReportState = { period: 'custom', from: '2026-01-01', to: '2026-01-31', tz: 'America/New_York', filters: [{ dim: 'page', op: 'eq', value: '/a;b?c=d&e' }, { dim: 'country', op: 'neq', value: 'DE' }], interval: 'week' };
    const written = writeState(state, 'UTC');
    expect(readState(new URLSearchParams(written), 'UTC')).toEqual(state);
  });

  it('keeps the chart’s interval in the URL, and otherwise asks for weeks past 31 days and months past 92', () => {
    expect(writeState({ ...base, interval: 'month' }, 'UTC')).toBe('interval=month');
    expect(readState(new URLSearchParams('interval=year'), 'UTC').interval).toBeNull();
    expect([chartInterval(base, NOW), chartInterval({ ...base, period: '12mo' }, NOW), chartInterval({ ...base, period: '7d' }, NOW)]).toEqual([null, 'month', null]);
    expect(chartInterval({ ...base, period: 'custom', from: '2026-01-01', to: '2026-02-15' }, NOW)).toBe('week');
    expect(chartInterval({ ...base, period: '12mo', interval: 'day' }, NOW)).toBe('day');
  });

  it('filters keep one clause per dimension and format as the API parses them', () => {
    const one = withFilter(base, { dim: 'page', op: 'eq', value: '/x' });
    const two = withFilter(withFilter(one, { dim: 'page', op: 'eq', value: '/y' }), { dim: 'source', op: 'contains', value: 'Goo;gle' });
    expect(two.filters).toEqual([{ dim: 'page', op: 'eq', value: '/y' }, { dim: 'source', op: 'contains', value: 'Goo;gle' }]);
    expect(parseFilter(formatFilter(two.filters))).toEqual(two.filters);
    expect(withoutFilter(two, 'page').filters).toEqual([{ dim: 'source', op: 'contains', value: 'Goo;gle' }]);
    expect(apiQuery(two, NOW).get('filter')).toBe('page:%2Fy;source~Goo%3Bgle');
  });

  it('keeps each panel’s chosen tab in the URL and reads it back; a first tab leaves the panel out', () => {
    const sources = withTab(base, 'sources', 'utm_campaigns');
    const both = withTab(sources, 'devices', 'browsers');
    expect(writeState(both, 'UTC')).toBe(`tabs=${encodeURIComponent('devices:browsers,sources:utm_campaigns')}`);
    expect(readState(new URLSearchParams(writeState(both, 'UTC')), 'UTC')).toEqual(both);
    expect(withTab(both, 'sources', null).tabs).toEqual({ devices: 'browsers' });
    expect(withTab(sources, 'sources', null)).toEqual(base);
    expect(writeState(withFilter(both, { dim: 'page', op: 'eq', value: '/x' }), 'UTC')).toContain('tabs=');
  });

  it('drops malformed tab pairs from the URL and keeps the well-formed ones', () => {
    const state = readState(new URLSearchParams('tabs=sources:utm_campaigns,bad,devices:,:x,a:b:c,Pages:exit_pages,devices:os'), 'UTC');
    expect(state.tabs).toEqual({ sources: 'utm_campaigns', devices: 'os' });
    expect(readState(new URLSearchParams('tabs=nonsense'), 'UTC')).toEqual(base);
  });

  it('adds days across month and year ends', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
  });

  it('edits a chip in its place, replacing any other clause on the new dimension; clears all', () => {
    const three = { ...base, filters: [{ dim: 'page', op: 'eq', value: '/a' }, { dim: 'country', op: 'eq', value: 'DE' }, { dim: 'os', op: 'eq', value: 'iOS' }] } as ReportState;
    expect(formatFilter(replacingFilter(three, 'country', { dim: 'country', op: 'neq', value: 'FR' }).filters)).toBe('page:%2Fa;country!FR;os:iOS');
    expect(formatFilter(replacingFilter(three, 'country', { dim: 'page', op: 'contains', value: 'b' }).filters)).toBe('page~b;os:iOS');
    expect(formatFilter(replacingFilter(three, null, { dim: 'event', op: 'eq', value: 'x' }).filters)).toBe('page:%2Fa;country:DE;os:iOS;event:x');
    expect(clearFilters(three).filters).toEqual([]);
  });

  it("suggests a dimension's values read under the other filters, matched by what is typed in any case", () => {
    const two = { ...base, filters: [{ dim: 'page', op: 'eq', value: '/a' }, { dim: 'country', op: 'eq', value: 'DE' }] } as ReportState;
    expect(new URLSearchParams(suggestionQuery(two, 'page', NOW)).get('filter')).toBe('country:DE');
    expect(new URLSearchParams(suggestionQuery(two, 'os', NOW)).get('filter')).toBe('page:%2Fa;country:DE');
    expect(matchingNames(['Google', 'DuckDuckGo', 'Bing'], ' go ')).toEqual(['Google', 'DuckDuckGo']);
    expect(matchingNames(['a', 'ab', 'abc'], '', 2)).toEqual(['a', 'ab']);
  });
});
