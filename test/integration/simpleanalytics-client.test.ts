/**
 * The Simple Analytics client against a local fake of the Export API: the
 * request it sends, streaming CSV with quoted fields, and every failure mode.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SimpleAnalyticsClient, retryAfterMs } from '#adapters/simpleanalytics/simpleanalytics-client.ts';
import { ImportSourceError, type ExportRequest } from '#ports/import-source.ts';
import { startFakeSimpleAnalytics, toCsv, type FakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';

let sa: FakeSimpleAnalytics;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}
const credentials = { user_id: 'sa_user_id_1', api_key: 'sa_api_key_top_secret' };
const now = new Date('2026-03-15T10:00:00Z');
const noWait = { baseMs: 1, maxMs: 2 };

const client = (over: Partial<ConstructorParameters<typeof SimpleAnalyticsClient>[0]> = {}) =>
  new SimpleAnalyticsClient({ baseUrl: `${sa.url}/`, backoff: noWait, batchSize: 2, ...over });

const request = (over: Partial<ExportRequest> = {}): ExportRequest => ({
  credentials,
  hostname: 'old.example',
  start: '2026-01-01',
  end: '2026-01-31',
  type: 'pageviews',
  ...over,
});

async function collect(c: SimpleAnalyticsClient, req = request()) {
  const out: { columns: readonly string[]; records: string[][] }[] = [];
  for await (const batch of c.exportBatches(req)) out.push(batch);
  return out;
}

beforeAll(async () => {
  sa = await startFakeSimpleAnalytics();
});
afterAll(() => sa.close());
beforeEach(() => {
  sa.on(null);
  sa.requests.length = 0;
});

describe('credential test', () => {
  it('asks for one recent day of page views with the Api-Key and User-Id headers', async () => {
    expect(await client().checkCredentials(credentials, 'old.example', now)).toEqual({ ok: true });
    expect(sa.requests).toHaveLength(1);
    const [r] = sa.requests;
    expect(r?.path).toBe('/api/export/datapoints');
    expect(r?.query).toEqual({
      version: '5',
      format: 'csv',
      hostname: 'old.example',
      start: '2026-03-14',
      end: '2026-03-14',
      timezone: 'UTC',
      robots: 'false',
      type: 'pageviews',
      fields: 'added_unix,uuid',
    });
    expect([r?.headers['api-key'], r?.headers['user-id']]).toEqual([credentials.api_key, credentials.user_id]);
  });

  it('quotes the status and at most 200 characters of the body', async () => {
    sa.on(() => ({ status: 401, body: 'Unauthorized: wrong API key' }));
    expect(await client().checkCredentials(credentials, 'old.example', now)).toEqual({ ok: false, error: 'SimpleAnalytics returned 401: Unauthorized: wrong API key' });
    sa.on(() => ({ status: 500, body: 'E'.repeat(1000) }));
    expect(await client().checkCredentials(credentials, 'old.example', now)).toEqual({ ok: false, error: `SimpleAnalytics returned 500: ${'E'.repeat(200)}` });
    // One request each: the credential test never retries.
    expect(sa.requests).toHaveLength(2);
  });

  it('does not follow redirects (they would carry the API key elsewhere)', async () => {
    sa.on(() => ({ status: 302, headers: { location: 'http://127.0.0.1:9/steal' }, body: '' }));
    expect(await client().checkCredentials(credentials, 'old.example', now)).toEqual({ ok: false, error: 'SimpleAnalytics returned 302: ' });
  });

  it('gives up after the timeout (20 s by default, shorter here)', async () => {
    sa.on(() => ({ delayMs: 2_000, status: 200, body: 'added_unix,uuid\n' }));
    const started = Date.now();
    expect(await client({ credentialTimeoutMs: 200 }).checkCredentials(credentials, 'old.example', now)).toEqual({
      ok: false,
      error: 'SimpleAnalytics error: no answer within 0.2 seconds',
    });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(new SimpleAnalyticsClient({ baseUrl: sa.url })['credentialTimeoutMs']).toBe(20_000);
  });

  it('reports network errors', async () => {
    sa.on(() => ({ destroy: true }));
    const r = await client().checkCredentials(credentials, 'old.example', now);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^SimpleAnalytics error: \S/);
    const refused = await new SimpleAnalyticsClient({ baseUrl: `http://127.0.0.1:${await closedPort()}` }).checkCredentials(credentials, 'old.example', now);
    expect(!refused.ok && refused.error).toMatch(/^SimpleAnalytics error: connect ECONNREFUSED/);
  });
});

describe('exportBatches', () => {
  it('streams the CSV in batches with quoted commas, quotes and newlines intact', async () => {
    sa.setData('old.example', {
      pageviews: [
        { added_unix: 1767225600, uuid: 'a', path: '/one, two' },
        { added_unix: 1767225601, uuid: 'b', path: '/say "hi"', document_referrer: 'line1\nline2' },
        { added_unix: 1767225602, uuid: 'c', path: '/three' },
      ],
      events: [],
    });
    const batches = await collect(client());
    expect(batches.reduce((n, b) => n + b.records.length, 0)).toBe(3);
    expect(batches.every((b) => b.records.length <= 2)).toBe(true);
    const columns = batches[0]?.columns as string[];
    const at = (rec: string[], name: string) => rec[columns.indexOf(name)];
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => at(r, 'path'))).toEqual(['/one, two', '/say "hi"', '/three']);
    expect(at(records[1] as string[], 'document_referrer')).toBe('line1\nline2');
    const q = sa.requests[0]?.query;
    expect([q?.type, q?.start, q?.end, q?.timezone, q?.robots]).toEqual(['pageviews', '2026-01-01', '2026-01-31', 'UTC', 'false']);
    expect(q?.fields?.split(',')).toContain('is_unique');
  });

  it('yields nothing for an empty export', async () => {
    sa.on(() => ({ status: 200, body: 'added_unix,uuid\n' }));
    expect(await collect(client())).toEqual([]);
  });

  it('fails at once on 401 and 403, quoting the body', async () => {
    for (const status of [401, 403]) {
      sa.requests.length = 0;
      sa.on(() => ({ status, body: 'plan does not include exports' }));
      const e = await collect(client()).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ImportSourceError);
      expect(e).toMatchObject({ permanent: true, message: `SimpleAnalytics returned ${status}: plan does not include exports` });
      expect(sa.requests).toHaveLength(1);
    }
  });

  it('retries 429 and 5xx with backoff, honouring Retry-After, then succeeds', async () => {
    let calls = 0;
    sa.on(() => {
      calls++;
      if (calls === 1) return { status: 429, headers: { 'retry-after': '0' }, body: 'slow down' };
      if (calls === 2) return { status: 503, body: 'maintenance' };
      return { status: 200, body: toCsv(['added_unix', 'uuid', 'path'], [{ added_unix: 1, uuid: 'x', path: '/' }]) };
    });
    const slept: number[] = [];
    const c = client({ sleep: async (ms) => void slept.push(ms), maxRetryAfterMs: 60_000 });
    expect((await collect(c)).flatMap((b) => b.records)).toHaveLength(1);
    expect(calls).toBe(3);
    expect(slept[0]).toBe(0);
  });

  it('caps a long Retry-After and reads HTTP dates', () => {
    expect(retryAfterMs('120')).toBe(120_000);
    expect(retryAfterMs(new Date(Date.now() + 5_000).toUTCString())).toBeGreaterThan(3_000);
    expect(retryAfterMs('soon')).toBeNull();
  });

  it('gives up after the last attempt with a transient error', async () => {
    sa.on(() => ({ status: 500, body: 'database on fire' }));
    const e = await collect(client({ attempts: 3 })).catch((x: unknown) => x);
    expect(e).toMatchObject({ permanent: false, message: 'SimpleAnalytics returned 500: database on fire' });
    expect(sa.requests).toHaveLength(3);
  });

  it('rejects malformed CSV as a permanent failure', async () => {
    sa.on(() => ({ status: 200, body: 'added_unix,uuid,path\n1,a,/\n2,"b,/x\n' }));
    const e = await collect(client()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ImportSourceError);
    expect(e).toMatchObject({ permanent: true });
    expect((e as Error).message).toMatch(/^SimpleAnalytics returned malformed CSV: /);
    sa.on(() => ({ status: 200, body: 'added_unix,uuid,path\n1,a\n' }));
    await expect(collect(client())).rejects.toMatchObject({ permanent: true });
  });

  it('never puts the API key in an error text', async () => {
    sa.on(() => ({ status: 403, body: `key ${credentials.api_key} revoked` }));
    const e = (await collect(client()).catch((x: unknown) => x)) as Error;
    expect(e.message).toBe('SimpleAnalytics returned 403: key [redacted] revoked');
  });

  it('stops when its signal aborts', async () => {
    sa.on(() => ({ hang: true }));
    const abort = new AbortController();
    const pending = collect(client(), request({ signal: abort.signal }));
    setTimeout(() => abort.abort(new Error('stopping')), 100);
    await expect(pending).rejects.toThrow('stopping');
  });
});

describe('exportBatches with CSV parsing on worker threads', () => {
  const threaded = () => client({ parseInWorkers: true });

  it('yields the same records as inline parsing, across reused threads', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ added_unix: 1767225600 + i, uuid: `u${i}`, path: i % 3 ? `/p${i}` : '/a, "b"', document_referrer: i === 7 ? 'x\ny' : '' }));
    sa.setData('threads.example', { pageviews: rows, events: [] });
    const c = threaded();
    try {
      for (let round = 0; round < 3; round++) {
        const inline = (await collect(client(), request({ hostname: 'threads.example' }))).flatMap((b) => b.records);
        const viaWorker = (await collect(c, request({ hostname: 'threads.example' }))).flatMap((b) => b.records);
        expect(viaWorker).toEqual(inline);
        expect(viaWorker).toHaveLength(25);
      }
    } finally {
      await c.close();
    }
  });

  it('reports malformed CSV as a permanent failure and recovers for the next export', async () => {
    const c = threaded();
    try {
      sa.on(() => ({ status: 200, body: 'added_unix,uuid,path\n1,a,/\n2,"b,/x\n' }));
      await expect(collect(c)).rejects.toMatchObject({ permanent: true, message: expect.stringMatching(/^SimpleAnalytics returned malformed CSV: /) });
      sa.on(() => ({ status: 200, body: 'added_unix,uuid,path\n1,a,/\n' }));
      expect((await collect(c)).flatMap((b) => b.records)).toEqual([['1', 'a', '/']]);
    } finally {
      await c.close();
    }
  });

  it('streams a large export with bounded batches', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ added_unix: 1767225600 + i, uuid: `u${i}`, path: `/p${i % 17}` }));
    sa.setData('large.example', { pageviews: rows, events: [] });
    const c = new SimpleAnalyticsClient({ baseUrl: sa.url, parseInWorkers: true, batchSize: 1_000 });
    try {
      const batches = await collect(c, request({ hostname: 'large.example' }));
      expect(batches.reduce((n, b) => n + b.records.length, 0)).toBe(20_000);
      expect(Math.max(...batches.map((b) => b.records.length))).toBeLessThanOrEqual(1_000);
    } finally {
      await c.close();
    }
  });
});
