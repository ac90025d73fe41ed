/**
 * The owner's export over HTTP (issue 42), on the local node with DuckDB:
 * CSV and NDJSON of a range with its rows only, in time order, quoted after
 * RFC 4180; the API-requests series; the defaults and the 400s; the access
 * matrix (owner only, also on a public site); and no line of either format
 * holding any visitor hash the store keeps for those rows (read from the
 * store, collected through the real collector and planted).
 */
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { EXPORT_COLUMNS } from '#domain/export/columns.ts';
import { EXPORT_PAGE_ROWS } from '#domain/export/pages.ts';
import { StoreUnavailableError } from '#domain/errors.ts';
import { registrationKey } from '#domain/registration.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { eventRow } from '../contract/event-store.contract.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
let site: string;
const OWNER = 'export-owner';
const DAY = 86_400_000;
const D1 = Date.UTC(2026, 0, 10);
const PLANTED_HASH = 'aa11bb22cc33dd44ee55ff6600778899';

/** `token` '' sends no Authorization header. */
const exportOf = (query: string, token = owner, h = site) => svc.req('GET', `/api/sites/${h}/export?${query}`, { token });
const planted = (ts: number, id: string, over: Partial<EventRow> = {}): EventRow =>
  eventRow({ site, registration: registrationKey(OWNER, site), ts, id, visitor: PLANTED_HASH, session_id: 'sess-planted', path: `/${id}`, ...over });
const csvRecords = (text: string) => Papa.parse<string[]>(text.replace(/\r\n$/, ''), { newline: '\r\n' }).data;

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token(OWNER);
  site = await svc.site(owner, { prefix: 'export' });
  await svc.node.runtime.events.saveEvents([
    planted(D1 + 1_000, 'b-first', { referrer: 'https://ref.example/a,b', utm_campaign: 'say "hi"', metadata: '{"plan":"pro"}', query: '=SUM(A1)' }),
    planted(D1 + 1_000, 'a-first'),
    planted(D1 + DAY + 5, 'day-two', { kind: 'event', event: 'signup' }),
    planted(D1 + 2 * DAY + 5, 'day-three', { imported: true, visitor: null, source_id: 'sa-1' }),
    planted(D1 - 1, 'before'),
  ]);
  // Collected now through the real collector: its visitor hash is the daily salt's.
  const beacon = await svc.req('POST', '/events', { body: { hostname: site, path: '/collected', ua: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0', timezone: 'Europe/Berlin' } });
  expect(beacon.status).toBe(200);
  await svc.until(() => svc.node.runtime.duckdb!.query<{ n: bigint }>('SELECT count(*) AS n FROM events WHERE site = $site AND path = $path', { site, path: '/collected' }), (r) => Number(r[0]?.n) === 1);
});
afterAll(() => svc.stop());

describe('GET /api/sites/{hostname}/export', () => {
  it('answers CSV of the range (days included) in time then id order, with the header, the file name and RFC 4180 quoting', async () => {
    const r = await exportOf('from=2026-01-10&to=2026-01-11');
    expect([r.status, r.headers.get('content-type'), r.headers.get('content-disposition'), r.headers.get('cache-control')]).toEqual([
      200, 'text/csv; charset=utf-8', `attachment; filename="${site}-events-2026-01-10-2026-01-11.csv"`, 'no-store',
    ]);
    expect(r.text.endsWith('\r\n')).toBe(true);
    const [header, ...records] = csvRecords(r.text);
    expect(header).toEqual(EXPORT_COLUMNS.events.map((c) => c.name));
    const col = (name: string) => header!.indexOf(name);
    expect(records.map((rec) => [rec[col('time')], rec[col('id')]])).toEqual([
      ['2026-01-10T00:00:01.000Z', 'a-first'],
      ['2026-01-10T00:00:01.000Z', 'b-first'],
      ['2026-01-11T00:00:00.005Z', 'day-two'],
    ]);
    const b = records[1]!;
    expect([b[col('referrer')], b[col('utm_campaign')], b[col('metadata')], b[col('query')], b[col('kind')], b[col('bot')]]).toEqual([
      'https://ref.example/a,b', 'say "hi"', '{"plan":"pro"}', "'=SUM(A1)", 'pageview', 'false',
    ]);
    expect(r.text).toContain('"say ""hi"""');
  });

  it('answers NDJSON: one object per line with the columns as keys, values typed, nothing else', async () => {
    const r = await exportOf('from=2026-01-11&to=2026-01-12&format=ndjson');
    expect([r.status, r.headers.get('content-type'), r.headers.get('content-disposition')]).toEqual([
      200, 'application/x-ndjson; charset=utf-8', `attachment; filename="${site}-events-2026-01-11-2026-01-12.ndjson"`,
    ]);
    const lines = r.text.split('\n');
    expect(lines.pop()).toBe('');
    const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects.map((o) => Object.keys(o))).toEqual([0, 1].map(() => EXPORT_COLUMNS.events.map((c) => c.name)));
    expect(objects.map((o) => [o.id, o.kind, o.event, o.imported, o.source_id, o.bot])).toEqual([
      ['day-two', 'event', 'signup', false, null, false],
      ['day-three', 'pageview', null, true, 'sa-1', false],
    ]);
  });

  it('takes the days in tz: 2026-01-10 in Asia/Tokyo runs from 15:00 UTC the day before', async () => {
    const r = await exportOf('from=2026-01-10&to=2026-01-10&tz=Asia/Tokyo&format=ndjson');
    expect(r.text.split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toEqual(['before', 'a-first', 'b-first']);
  });

  it('defaults to CSV of events over the last 30 days, today included (the collected row)', async () => {
    const r = await exportOf('');
    const [header, ...records] = csvRecords(r.text);
    expect([r.status, records.map((rec) => rec[header!.indexOf('path')])]).toEqual([200, ['/collected']]);
    const today = new Date().toISOString().slice(0, 10);
    const first = new Date(Date.parse(today) - 29 * DAY).toISOString().slice(0, 10);
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="${site}-events-${first}-${today}.csv"`);
  });

  it('refuses bad input with 400 and the text naming it', async () => {
    const cases: [string, string][] = [
      ['series=pages', 'series must be events or api'],
      ['format=xlsx', 'format must be csv or ndjson'],
      ['from=2026-02-30', 'invalid range'],
      ['from=1767225600', 'invalid range'],
      ['from=2026-01-12&to=2026-01-11', 'invalid range'],
      ['tz=Mars/Olympus', 'invalid timezone'],
    ];
    for (const [query, error] of cases) expect(await exportOf(query).then((r) => [r.status, r.json]), query).toEqual([400, { error }]);
  });

  it('holds no visitor hash the store keeps for the site, in any line of either format, and no session id', async () => {
    const stored = await svc.node.runtime.duckdb!.query<{ visitor: string }>('SELECT DISTINCT visitor FROM events WHERE site = $site AND visitor IS NOT NULL', { site });
    const hashes = stored.map((r) => r.visitor);
    expect(hashes).toContain(PLANTED_HASH);
    expect(hashes.length).toBeGreaterThanOrEqual(2);
    for (const format of ['csv', 'ndjson']) {
      const r = await exportOf(`from=2026-01-01&to=${new Date().toISOString().slice(0, 10)}&format=${format}`);
      const lines = r.text.split('\n').filter(Boolean);
      expect(lines.length, format).toBe(format === 'csv' ? 7 : 6);
      for (const line of lines) {
        for (const hash of hashes) expect(line.includes(hash), `${format}: ${line}`).toBe(false);
        expect(line.includes('sess-planted'), format).toBe(false);
      }
    }
  });

  it('exports the API-requests series of an API site', async () => {
    const apiSite = await svc.site(owner, { prefix: 'export-api', kind: 'api', verify: false });
    const ingestKey = await svc.key(owner, ['ingest']);
    const sent = await svc.req('POST', '/api/ingest', { token: ingestKey.key, body: { requests: [{ method: 'get', route: '/users/{id}', status: 503, duration_ms: 12.5, consumer: 'app' }] }, headers: { 'X-Service-Site': apiSite } });
    expect(sent.status).toBe(202);
    const r = await svc.until(() => exportOf('series=api&format=ndjson', owner, apiSite), (a) => a.text.length > 0);
    expect(r.headers.get('content-disposition')).toContain(`${apiSite}-api-`);
    const [row] = r.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(Object.keys(row)).toEqual(EXPORT_COLUMNS.api.map((c) => c.name));
    expect([row.method, row.route, row.status, row.duration_ms, row.bytes_in, row.consumer]).toEqual(['GET', '/users/{id}', 503, 12.5, null, 'app']);
  });

  it('cuts the connection when the store fails after the first page, so no download looks whole; a failure before it is a JSON 503', async () => {
    const real = svc.node.services.rowExport;
    let calls = 0;
    const page = Array.from({ length: EXPORT_PAGE_ROWS }, (_, i) => ({ ts: D1 + i, id: `r${i}`, kind: 'pageview', bot: false, imported: false }));
    svc.node.services.rowExport = { ...real, exportPage: async () => (calls++ === 0 ? page : Promise.reject(new Error('store went away'))) };
    try {
      // node:http says whether the answer ended as sent (undici's fetch takes a cut chunked body as whole).
      const cut = await new Promise<[number | undefined, boolean, number]>((ok) => {
        get(`${svc.url}/api/sites/${site}/export?from=2026-01-10&to=2026-01-20`, { headers: { authorization: `Bearer ${owner}` } }, (res) => {
          let bytes = 0;
          res.on('data', (d: Buffer) => (bytes += d.length));
          res.on('error', () => undefined);
          res.on('close', () => ok([res.statusCode, res.complete, bytes]));
        });
      });
      expect([cut[0], cut[1], cut[2] > 0]).toEqual([200, false, true]);
      svc.node.services.rowExport = { ...real, exportPage: () => Promise.reject(new StoreUnavailableError()) };
      expect(await exportOf('from=2026-01-10&to=2026-01-20').then((a) => [a.status, a.json])).toEqual([503, { error: StoreUnavailableError.text }]);
    } finally {
      svc.node.services.rowExport = real;
    }
  });

  it('refuses a range over EXPORT_MAX_ROWS with 400 before any row, and answers one at the cap', async () => {
    const capped = await startTestService({ EXPORT_MAX_ROWS: '2' });
    try {
      const token = await capped.token(OWNER);
      const h = await capped.site(token, { prefix: 'export-capped' });
      const at = (id: string, ts: number) => ({ ...planted(ts, id), site: h, registration: registrationKey(OWNER, h) });
      await capped.node.runtime.events.saveEvents([at('one', D1), at('two', D1 + DAY), at('three', D1 + 2 * DAY)]);
      const over = await capped.req('GET', `/api/sites/${h}/export?from=2026-01-10&to=2026-01-12`, { token });
      expect([over.status, over.json]).toEqual([400, { error: 'too many rows for one export on this deployment: choose fewer days' }]);
      const at2 = await capped.req('GET', `/api/sites/${h}/export?from=2026-01-10&to=2026-01-11&format=ndjson`, { token });
      expect([at2.status, at2.text.split('\n').filter(Boolean).length]).toEqual([200, 2]);
    } finally {
      await capped.stop();
    }
  });

  it('is owner only, also on a public site: a read key works, other accounts and anonymous readers get 404, a key without read 403', async () => {
    expect((await svc.req('PATCH', `/api/sites/${site}`, { token: owner, body: { is_public: true } })).status).toBe(200);
    expect((await svc.req('GET', `/api/sites/${site}/overview`)).status).toBe(200);
    const read = await svc.key(owner, ['read']);
    const manage = await svc.key(owner, ['manage']);
    const unknown = { error: 'unknown site' };
    expect((await exportOf('from=2026-01-10&to=2026-01-10', read.key)).status).toBe(200);
    expect(await exportOf('', manage.key).then((r) => [r.status, r.json])).toEqual([403, { error: 'scope read required' }]);
    expect(await exportOf('', '').then((r) => [r.status, r.json])).toEqual([404, unknown]);
    expect(await exportOf('', 'not-a-token').then((r) => [r.status, r.json])).toEqual([404, unknown]);
    expect(await exportOf('', await svc.token(OWNER, -60)).then((r) => [r.status, r.json])).toEqual([404, unknown]);
    expect(await exportOf('', await svc.token('export-stranger')).then((r) => [r.status, r.json])).toEqual([404, unknown]);
    // Access is judged before the query: a stranger learns nothing from a bad parameter either.
    expect(await exportOf('format=xlsx', await svc.token('export-stranger')).then((r) => [r.status, r.json])).toEqual([404, unknown]);
  });
});
