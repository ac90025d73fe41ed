/**
 * The overview's `interval` over HTTP (issue 40): week and month buckets on
 * local calendar boundaries, each bucket's visitors counted by the store
 * within it, the series summing to the totals; a bad interval is 400 with its
 * text. Real handlers, dynalite and DuckDB; beacons through the collector.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
let site: string;

const ua = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.${n}.0 Safari/537.36`;
const overview = (query: string) => svc.req('GET', `/api/sites/${site}/overview?${query}`, { token: owner });

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('interval-owner');
  site = await svc.site(owner, { prefix: 'interval' });
  for (const n of [1, 2, 3]) {
    for (const path of ['/', '/pricing']) {
      const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, path, ua: ua(n) }), headers: { 'user-agent': ua(n) } });
      expect(r.text).toBe('ok');
    }
  }
  await svc.until(() => overview(''), (r) => r.json.totals.pageviews === 6);
});
afterAll(() => svc.stop());

describe('GET …/overview?interval=', () => {
  it('answers weeks from local Mondays and months from the local 1st, the visitors of each counted within it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const from = now - 70 * 86_400;
    const weeks = await overview(`from=${from}&to=${now}&tz=Europe/Berlin&interval=week`);
    expect([weeks.status, weeks.json.granularity, weeks.json.series.length]).toEqual([200, 'week', expect.any(Number)]);
    expect(weeks.json.series.length).toBeGreaterThanOrEqual(10);
    expect(weeks.json.series.length).toBeLessThanOrEqual(12);
    const mondays = weeks.json.series.map((p: { t: number }) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', weekday: 'short', hour: '2-digit', minute: '2-digit' }).format(p.t * 1000));
    expect(new Set(mondays)).toEqual(new Set(['Mon 00:00']));
    const last = weeks.json.series.at(-1);
    expect([last.pageviews, last.visitors]).toEqual([6, 3]);
    const sum = (key: 'pageviews' | 'visitors') => weeks.json.series.reduce((n: number, p: Record<string, number>) => n + (p[key] ?? 0), 0);
    expect([sum('pageviews'), sum('visitors')]).toEqual([weeks.json.totals.pageviews, weeks.json.totals.visitors]);

    const months = await overview(`from=${now - 200 * 86_400}&to=${now}&tz=America/New_York&interval=month`);
    expect([months.status, months.json.granularity]).toEqual([200, 'month']);
    const firsts = months.json.series.map((p: { t: number }) => new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(p.t * 1000));
    expect(new Set(firsts)).toEqual(new Set(['1, 00:00']));
    expect(months.json.series.at(-1)).toMatchObject({ pageviews: 6, visitors: 3 });
  });

  it('keeps hours and days by the range’s length without one, and refuses any other interval with its text', async () => {
    expect((await overview('')).json.granularity).toBe('day');
    const now = Math.floor(Date.now() / 1000);
    expect((await overview(`from=${now - 3600}&to=${now}`)).json.granularity).toBe('hour');
    expect((await overview(`from=${now - 3600}&to=${now}&interval=day`)).json.granularity).toBe('day');
    for (const bad of ['hour', 'year', '']) {
      const r = await overview(`interval=${bad}`);
      expect([r.status, r.json]).toEqual([400, { error: 'interval must be day, week or month' }]);
    }
  });
});
