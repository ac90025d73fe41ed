/**
 * Imports end to end: the real single-node service (dynalite, DuckDB, the
 * in-process import queue and worker) over HTTP, against a local fake of the
 * Simple Analytics Export API. Covers every create check in order, the
 * credential-test texts, a 14-month import of ~200,000 rows checked in the
 * reports, overlap de-duplication, cancel, retry and the site delete cascade.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { planChunks } from '#domain/imports/planner.ts';
import { MAX_SOURCE_ERROR_BODY } from '#domain/imports/source.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import {
  PLAUSIBLE_API_KEY,
  echoAt,
  generateDataset,
  isCredentialTest,
  leakedPart,
  startFakeSimpleAnalytics,
  type FakeSimpleAnalytics,
  type SaAnswer,
  type SaDataset,
  type SaRequest,
} from '../support/fake-simpleanalytics.ts';

const DAY_MS = 86_400_000;
const UNVERIFIED = 'Install your tracking script to verify this site first';
/** A UTC date `offset` days from today. */
const utcDay = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
const dayMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
const firstOfMonth = (date: string, monthsBack: number) => {
  const d = new Date(dayMs(date));
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - monthsBack, 1)).toISOString().slice(0, 10);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let svc: TestService;
let sa: FakeSimpleAnalytics;
let seq = 0;
const API_KEY = 'sa_api_key_never_logged_4f1c';

function importBody(config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    source: 'simpleanalytics',
    range_start: utcDay(-20),
    range_end: utcDay(-1),
    config: { user_id: 'sa_user_id_1', api_key: API_KEY, source_hostname: `old-${++seq}.example.org`, ...config },
    ...extra,
  };
}

type Job = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function listJobs(token: string, h: string): Promise<Job[]> {
  const r = await svc.req('GET', `/api/sites/${h}/imports`, { token });
  expect(r.status, r.text).toBe(200);
  return r.json.imports;
}

async function waitJob(token: string, h: string, id: string, until: (j: Job) => boolean, timeoutMs = 60_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await listJobs(token, h)).find((j) => j.id === id);
    if (job && until(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} did not get there: ${JSON.stringify(job)}`);
    await sleep(25);
  }
}

const settled = (j: Job) => !['queued', 'running'].includes(j.status);

/** Rows of a dataset with added_unix within [start, end] (inclusive days). */
function inRange(data: SaDataset, start: string, end: string) {
  const from = dayMs(start) / 1000;
  const to = dayMs(end) / 1000 + 86_400;
  const pick = <T extends { added_unix: number }>(rows: T[]) => rows.filter((r) => r.added_unix >= from && r.added_unix < to);
  return { pageviews: pick(data.pageviews), events: pick(data.events) };
}

async function storedRows(site: string): Promise<{ rows: number; distinct: number; bots: number }> {
  const [r] = await svc.node.runtime.duckdb!.query<{ rows: bigint; distinct: bigint; bots: bigint }>(
    `SELECT count(*) AS rows, count(DISTINCT source_id) AS distinct, count(*) FILTER (WHERE bot) AS bots FROM events WHERE site = $site AND imported`,
    { site },
  );
  return { rows: Number(r?.rows), distinct: Number(r?.distinct), bots: Number(r?.bots) };
}

const logged: string[] = [];

beforeAll(async () => {
  sa = await startFakeSimpleAnalytics();
  svc = await startTestService({ SIMPLEANALYTICS_BASE_URL: sa.url, IMPORT_CREDENTIAL_TIMEOUT_MS: '300', IMPORT_RETRY_BASE_MS: '10' });
  for (const level of ['log', 'error', 'warn'] as const) {
    const original = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(' '));
      if (level !== 'log' || !String(args[0]).includes('"import chunk"')) original(...args);
    });
  }
});

afterAll(async () => {
  await svc?.stop();
  await sa?.close();
  vi.restoreAllMocks();
});

describe('GET /api/import-sources', () => {
  it('describes the one source to any signed-in caller, never credentials', async () => {
    const r = await svc.req('GET', '/api/import-sources', { token: await svc.token('sources') });
    expect(r.status).toBe(200);
    expect(r.json.sources).toHaveLength(1);
    expect(r.json.sources[0]).toMatchObject({ id: 'simpleanalytics', label: 'SimpleAnalytics' });
    expect(r.json.sources[0].configFields.map((f: Job) => f.key)).toEqual(['user_id', 'api_key', 'source_hostname']);
    expect((await svc.req('GET', '/api/import-sources')).status).toBe(401);
  });
});

describe('POST /api/sites/{hostname}/imports: the checks in order', () => {
  it('answers the first failing check when several fail at once, and calls the source only at the last', async () => {
    const alice = await svc.token('alice-checks');
    const mallory = await svc.token('mallory-checks');
    const h = await svc.site(alice, { prefix: 'checks' });
    const pending = await svc.site(alice, { prefix: 'checks-pending', verify: false });
    const { key } = await svc.key(alice, ['read', 'manage']);
    const post = (host: string, body: unknown, token: string | undefined = alice, raw?: string) =>
      svc.req('POST', `/api/sites/${host}/imports`, { token, body, raw });
    const expectError = async (p: Promise<{ status: number; json: Job }>, status: number, error: string) => {
      const r = await p;
      expect([r.status, r.json?.error]).toEqual([status, error]);
    };
    const before = sa.requests.length;
    const allWrong = importBody({ user_id: '', source_hostname: 'not a host' }, { range_end: 'never', source: 'matomo' });

    await expectError(post(h, allWrong, mallory), 404, 'unknown site');
    await expectError(post(`missing-${seq}.example`, allWrong), 404, 'unknown site');
    await expectError(post(pending, allWrong, key), 403, 'management keys cannot call this endpoint');
    await expectError(post(h, importBody(), key), 403, 'management keys cannot call this endpoint');
    await expectError(post(h, allWrong, ''), 401, 'sign in required');
    await expectError(post(pending, allWrong), 403, UNVERIFIED);
    await expectError(post(h, undefined), 400, 'invalid date range');
    await expectError(post(h, undefined, alice, '{not json'), 400, 'invalid date range');
    await expectError(post(h, allWrong), 400, 'invalid date range');
    await expectError(post(h, importBody({}, { range_start: utcDay(-3), range_end: utcDay(-4) })), 400, 'invalid date range');
    await expectError(post(h, importBody({}, { range_end: utcDay(1) })), 400, 'invalid date range');
    await expectError(post(h, importBody({}, { range_start: utcDay(-401), range_end: utcDay(-1) })), 400, 'invalid date range');
    await expectError(post(h, importBody({ user_id: '' }, { source: 'matomo' })), 400, 'unknown import source');
    await expectError(post(h, importBody({ user_id: undefined, api_key: undefined })), 400, 'User ID is required');
    await expectError(post(h, importBody({ api_key: '  ', source_hostname: '1.2.3.4' })), 400, 'API key is required');
    await expectError(post(h, importBody({ api_key: 'sa_api_key <b>', source_hostname: '1.2.3.4' })), 400, 'API key is invalid');
    await expectError(post(h, importBody({ api_key: 'short' })), 400, 'API key is invalid');
    await expectError(post(h, importBody({ source_hostname: undefined })), 400, 'Source hostname is required');
    await expectError(post(h, importBody({ source_hostname: 'https://1.2.3.4/' })), 400, 'Source hostname is invalid');
    await expectError(post(h, importBody({ source_hostname: 'old.example:8080' })), 400, 'Source hostname is invalid');
    expect(sa.requests.length).toBe(before);

    // A 400-day range passes checks 3 to 6 and reaches the credential test.
    sa.on(() => ({ status: 401, body: 'nope' }));
    try {
      await expectError(post(h, importBody({}, { range_start: utcDay(-400), range_end: utcDay(-1) })), 400, 'SimpleAnalytics returned 401: nope');
    } finally {
      sa.on(null);
    }
    // Checks 6 and 7 failing together: the active job wins and the source is not asked.
    // (The active job's exports are slowed so that it stays active meanwhile.)
    const busy = `busy-${seq}.example.org`;
    sa.on((r) => (r.query.hostname === busy && !isCredentialTest(r) ? { delayMs: 1_000, status: 200, body: 'added_unix,uuid\n' } : undefined));
    const active = await post(h, importBody({ source_hostname: busy }));
    expect(active.status, active.text).toBe(201);
    const asked = sa.requests.filter(isCredentialTest).length;
    sa.on((r) => (isCredentialTest(r) ? { status: 401, body: 'should not be asked' } : r.query.hostname === busy ? { delayMs: 1_000, status: 200, body: 'added_unix,uuid\n' } : undefined));
    try {
      await expectError(post(h, importBody()), 409, 'an import is already active for this site');
      // Check 4 comes before check 6.
      await expectError(post(h, importBody({ api_key: '' })), 400, 'API key is required');
    } finally {
      sa.on(null);
    }
    expect(sa.requests.filter(isCredentialTest).length).toBe(asked);
    expect((await svc.req('POST', `/api/sites/${h}/imports/${active.json.id}/cancel`, { token: alice })).status).toBe(200);
  });

  it('limits an owner to 20 new jobs in 24 hours across sites and statuses (429 before 409)', async () => {
    const owner = await svc.token('limit-owner');
    const sites = [await svc.site(owner, { prefix: 'limit-a' }), await svc.site(owner, { prefix: 'limit-b' })];
    const oneDay = { range_start: utcDay(-2), range_end: utcDay(-2) };
    // A failed credential test gives its slot back.
    sa.on((r) => (isCredentialTest(r) ? { status: 403, body: 'no' } : undefined));
    expect((await svc.req('POST', `/api/sites/${sites[0]}/imports`, { token: owner, body: importBody({}, oneDay) })).status).toBe(400);
    // Exports wait until the end of the test, so every job stays active until it is cancelled.
    let release = () => {};
    const exportsHeld = new Promise<void>((resolve) => (release = resolve));
    sa.on(async (r) => {
      if (!isCredentialTest(r)) await exportsHeld;
      return undefined;
    });
    let last: Job = {};
    try {
      for (let i = 0; i < 20; i++) {
        const h = sites[i % 2] as string;
        const r = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({}, oneDay) });
        expect(r.status, `job ${i + 1}: ${r.text}`).toBe(201);
        last = { h, id: r.json.id };
        if (i < 19) expect((await svc.req('POST', `/api/sites/${h}/imports/${r.json.id}/cancel`, { token: owner })).status).toBe(200);
      }
      // The 20th job is still active on its site, so both check 5 (daily limit) and check 6 (one active import) fail: 5 wins.
      const twentieth = (await listJobs(owner, last.h as string)).find((j) => j.id === last.id);
      expect(['queued', 'running']).toContain(twentieth?.status);
      const again = await svc.req('POST', `/api/sites/${last.h}/imports`, { token: owner, body: importBody({}, oneDay) });
      expect([again.status, again.json.error]).toEqual([429, 'daily import limit reached']);
      const other = sites.find((s) => s !== last.h) as string;
      const third = await svc.req('POST', `/api/sites/${other}/imports`, { token: owner, body: importBody({}, oneDay) });
      expect([third.status, third.json.error]).toEqual([429, 'daily import limit reached']);
      // Invalid configuration is still reported before the limit.
      const bad = await svc.req('POST', `/api/sites/${other}/imports`, { token: owner, body: importBody({ user_id: '' }, oneDay) });
      expect([bad.status, bad.json.error]).toEqual([400, 'User ID is required']);
    } finally {
      await svc.req('POST', `/api/sites/${last.h}/imports/${last.id}/cancel`, { token: owner });
      release();
      sa.on(null);
    }
  });

  it('gives exactly one 201 and one 409 to two simultaneous creates for one site', async () => {
    const owner = await svc.token('race-owner');
    for (let round = 0; round < 3; round++) {
      const h = await svc.site(owner, { prefix: `race-${round}` });
      sa.on((r) => (isCredentialTest(r) ? { status: 200, body: 'added_unix,uuid\n', delayMs: 50 } : undefined));
      const results = await Promise.all([0, 1].map(() => svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({}, { range_start: utcDay(-2), range_end: utcDay(-2) }) })));
      sa.on(null);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(results.find((r) => r.status === 409)?.json.error).toBe('an import is already active for this site');
      expect(await listJobs(owner, h)).toHaveLength(1);
    }
  });
});

describe('the credential test', () => {
  it('answers the spec texts and keeps nothing behind', async () => {
    const owner = await svc.token('cred-owner');
    const h = await svc.site(owner, { prefix: 'cred' });
    const post = (body = importBody()) => svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body });
    const cases: [(r: SaRequest) => SaAnswer, string | RegExp][] = [
      [() => ({ status: 401, body: 'Unauthorized: invalid API key' }), 'SimpleAnalytics returned 401: Unauthorized: invalid API key'],
      [() => ({ status: 500, body: 'x'.repeat(300) }), `SimpleAnalytics returned 500: ${'x'.repeat(200)}`],
      [() => ({ status: 200, body: 'added_unix,uuid\n', delayMs: 1_500 }), 'SimpleAnalytics error: no answer within 0.3 seconds'],
      [() => ({ destroy: true }), /^SimpleAnalytics error: \S+/],
    ];
    for (const [answer, error] of cases) {
      sa.on(answer);
      const r = await post();
      sa.on(null);
      expect(r.status, r.text).toBe(400);
      if (typeof error === 'string') expect(r.json.error).toBe(error);
      else expect(r.json.error).toMatch(error);
    }
    expect(await listJobs(owner, h)).toEqual([]);

    const body = importBody({ source_hostname: ' HTTPS://Old-Blog.Example.ORG/path ' });
    const ok = await post(body);
    expect(ok.status, ok.text).toBe(201);
    const test = sa.requests.filter(isCredentialTest).at(-1) as SaRequest;
    expect(test.path).toBe('/api/export/datapoints');
    expect(test.query).toMatchObject({ version: '5', format: 'csv', hostname: 'old-blog.example.org', timezone: 'UTC', robots: 'false', type: 'pageviews' });
    expect([test.headers['api-key'], test.headers['user-id']]).toEqual([API_KEY, 'sa_user_id_1']);
    expect(ok.json).toMatchObject({ status: 'queued', site: h, source: 'simpleanalytics', source_label: 'SimpleAnalytics', config: { user_id: 'sa_user_id_1', source_hostname: 'old-blog.example.org' } });
    expect(ok.text).not.toContain(API_KEY);
  });
});

describe('a 14-month import of ~200,000 rows', () => {
  const end = utcDay(-1);
  const start = [firstOfMonth(end, 13), addDays(end, -399)].sort().at(-1) as string;
  const source = 'big-old-site.example.com';
  // Data from 60 days before the first job's range: the second, overlapping job finds new rows there.
  const dataStart = addDays(start, -60);
  const data = generateDataset(dataStart, end, 195_000, 35_000, 7);
  const main = inRange(data, start, end);
  let owner: string;
  let h: string;

  beforeAll(async () => {
    owner = await svc.token('big-owner');
    h = await svc.site(owner, { prefix: 'big' });
    sa.setData(source, data);
    sa.warm(source, [...planChunks(start, end), ...planChunks(dataStart, addDays(start, 90))]);
  });

  it('imports every row, month by month, and the reports show the totals', { timeout: 180_000 }, async () => {
    const body = importBody({ source_hostname: source }, { range_start: start, range_end: end });
    const created = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body });
    expect(created.status, created.text).toBe(201);
    const startedAt = performance.now();
    expect(created.json.chunks_total).toBe(28);
    const job = await waitJob(owner, h, created.json.id, settled, 170_000);
    const seconds = (performance.now() - startedAt) / 1000;
    const total = main.pageviews.length + main.events.length;
    console.info(`import of ${total} rows in ${seconds.toFixed(2)} s: ${Math.round(total / seconds)} rows/s (HTTP + CSV + mapping + de-dup + DuckDB)`);
    expect(job).toMatchObject({ status: 'succeeded', chunks_done: 28, rows_imported: total, rows_skipped: 0, error: null });
    expect(total).toBeGreaterThan(190_000);
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.created_at));

    // Every month asked once per type, with the spec'd query.
    const asked = sa.exports(source);
    expect(asked).toHaveLength(28);
    expect(new Set(asked.map((r) => `${r.query.type} ${r.query.start} ${r.query.end}`)).size).toBe(28);
    expect(asked[0]?.query).toMatchObject({ version: '5', format: 'csv', timezone: 'UTC', robots: 'false', hostname: source });

    const stored = await storedRows(h);
    expect(stored).toEqual({ rows: total, distinct: total, bots: main.pageviews.filter((p) => p.is_robot).length });

    const humans = main.pageviews.filter((p) => !p.is_robot);
    const range = `from=${dayMs(start) / 1000}&to=${dayMs(end) / 1000 + 86_400}`;
    const overview = await svc.req('GET', `/api/sites/${h}/overview?${range}`, { token: owner });
    expect(overview.status, overview.text).toBe(200);
    expect(overview.json.totals.pageviews).toBe(humans.length);
    expect(overview.json.totals.visitors).toBe(humans.filter((p) => p.is_unique).length);

    const pages = await svc.req('GET', `/api/sites/${h}/breakdown?dim=pages&limit=1000&${range}`, { token: owner });
    expect(pages.status, pages.text).toBe(200);
    const expected = new Map<string, { value: number; visitors: number }>();
    for (const p of humans) {
      const row = expected.get(p.path) ?? { value: 0, visitors: 0 };
      row.value++;
      if (p.is_unique) row.visitors++;
      expected.set(p.path, row);
    }
    expect(Object.fromEntries(pages.json.rows.map((r: Job) => [r.name, { value: r.value, visitors: r.visitors }]))).toEqual(Object.fromEntries(expected));

    const events = await svc.req('GET', `/api/sites/${h}/breakdown?dim=events&limit=100&${range}`, { token: owner });
    const names = new Map<string, number>();
    for (const e of main.events) {
      const name = (e.datapoint as string).replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
      names.set(name, (names.get(name) ?? 0) + 1);
    }
    expect(Object.fromEntries(events.json.rows.map((r: Job) => [r.name, r.value]))).toEqual(Object.fromEntries(names));
    // Imported events carry no visitor hash, so they add no visitors (spec part 6 rule 6).
    expect(events.json.rows.every((r: Job) => r.visitors === 0)).toBe(true);

    // Success deletes the credentials.
    expect(await svc.node.services.importJobs.getCredentials(h, job.id, new Date())).toBeNull();
  });

  it('skips every repeated uuid in a second, overlapping job', { timeout: 120_000 }, async () => {
    const second = { start: dataStart, end: addDays(start, 90) };
    const fresh = inRange(data, dataStart, addDays(start, -1));
    const repeated = inRange(data, start, second.end);
    const created = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({ source_hostname: source }, { range_start: second.start, range_end: second.end }) });
    expect(created.status, created.text).toBe(201);
    const job = await waitJob(owner, h, created.json.id, settled, 110_000);
    expect(job).toMatchObject({
      status: 'succeeded',
      rows_imported: fresh.pageviews.length + fresh.events.length,
      rows_skipped: repeated.pageviews.length + repeated.events.length,
    });
    const all = inRange(data, dataStart, end);
    const stored = await storedRows(h);
    expect([stored.rows, stored.distinct]).toEqual([all.pageviews.length + all.events.length, all.pageviews.length + all.events.length]);
  });

  it('lists the jobs newest first, without credentials', async () => {
    const r = await svc.req('GET', `/api/sites/${h}/imports`, { token: owner });
    expect(r.json.imports).toHaveLength(2);
    const [newest, oldest] = r.json.imports;
    expect(newest.created_at >= oldest.created_at).toBe(true);
    expect(newest.range_start).toBe(dataStart);
    expect(r.text).not.toContain(API_KEY);
    const { key } = await svc.key(owner, ['read']);
    expect((await svc.req('GET', `/api/sites/${h}/imports`, { token: key })).status).toBe(200);
    expect((await svc.req('GET', `/api/sites/${h}/imports`, { token: await svc.token('stranger') })).json.error).toBe('unknown site');
  });

  it('goes with the site: a site delete removes its jobs, the imported analytics stay', async () => {
    const before = await storedRows(h);
    expect((await svc.req('DELETE', `/api/sites/${h}`, { token: owner })).status).toBe(200);
    const again = await svc.req('POST', '/api/sites', { token: owner, body: { hostname: h } });
    expect(again.status).toBe(201);
    expect(await listJobs(owner, h)).toEqual([]);
    expect(await storedRows(h)).toEqual(before);
  });
});

describe('cancel and retry', () => {
  const start = firstOfMonth(utcDay(-1), 5);
  const end = utcDay(-1);
  let owner: string;

  beforeAll(async () => {
    owner = await svc.token('cancel-owner');
  });

  async function newImport(prefix: string, source: string, data: SaDataset) {
    const h = await svc.site(owner, { prefix });
    sa.setData(source, data);
    const r = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({ source_hostname: source }, { range_start: start, range_end: end }) });
    expect(r.status, r.text).toBe(201);
    return { h, id: r.json.id as string, total: data.pageviews.length + data.events.length };
  }

  it('stops after the chunk in flight, and a retry runs only the unfinished chunks', { timeout: 60_000 }, async () => {
    const source = 'slow-old.example';
    // Slow every export of this source so the job is caught mid-way.
    let slow = true;
    sa.on(async (r) => {
      if (slow && r.query.hostname === source && !isCredentialTest(r)) await sleep(150);
      return undefined;
    });
    const { h, id, total } = await newImport('cancel', source, generateDataset(start, end, 3_000, 600, 3));
    const running = await waitJob(owner, h, id, (j) => j.chunks_done >= 2);
    expect(running.status).toBe('running');
    const cancel = await svc.req('POST', `/api/sites/${h}/imports/${id}/cancel`, { token: owner });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.json).toMatchObject({ status: 'cancelled', error: null });
    expect(cancel.json.finished_at).toBeTruthy();
    const doneAtCancel = cancel.json.chunks_done as number;
    // A job queued after the cancel runs to the end only once the import queue is past the cancelled job's chunks.
    const marker = await newImport('cancel-marker', 'marker-old.example', generateDataset(start, end, 30, 6, 5));
    expect(await waitJob(owner, marker.h, marker.id, settled)).toMatchObject({ status: 'succeeded' });
    const stopped = (await listJobs(owner, h)).find((j) => j.id === id) as Job;
    expect(stopped.status).toBe('cancelled');
    // The chunks in flight (two run side by side locally) may finish and count; nothing after them runs.
    expect(stopped.chunks_done - doneAtCancel).toBeLessThanOrEqual(2);
    const askedBeforeRetry = sa.exports(source).length;
    expect(askedBeforeRetry).toBeLessThanOrEqual(stopped.chunks_done + 2);
    expect((await svc.req('POST', `/api/sites/${h}/imports/${id}/cancel`, { token: owner })).status).toBe(409);

    slow = false;
    const retry = await svc.req('POST', `/api/sites/${h}/imports/${id}/retry`, { token: owner });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json).toMatchObject({ status: 'queued', error: null, finished_at: null });
    const job = await waitJob(owner, h, id, settled);
    expect(job).toMatchObject({ status: 'succeeded', chunks_done: job.chunks_total, rows_imported: total, rows_skipped: 0 });
    // Each chunk fetched to completion once: only the unfinished ones were queued again.
    const asked = sa.exports(source).map((r) => `${r.query.type} ${r.query.start}`);
    expect(asked.length).toBeLessThanOrEqual(job.chunks_total + 2);
    expect(new Set(asked).size).toBe(job.chunks_total);
    expect(await storedRows(h)).toMatchObject({ rows: total, distinct: total });
    sa.on(null);
  });

  it('fails at once on 401 with the source text, and a retry with a new key finishes the job', { timeout: 60_000 }, async () => {
    const source = 'revoked-old.example';
    const months = planChunks(start, end);
    const broken = months[3] as (typeof months)[number];
    let fail = true;
    sa.on((r) =>
      fail && r.query.hostname === source && r.query.type === broken.type && r.query.start === broken.start ? { status: 401, body: 'API key revoked' } : undefined,
    );
    const { h, id, total } = await newImport('revoked', source, generateDataset(start, end, 2_000, 400, 4));
    const failed = await waitJob(owner, h, id, settled);
    expect(failed).toMatchObject({ status: 'failed', error: 'SimpleAnalytics returned 401: API key revoked' });
    expect(failed.finished_at).toBeTruthy();
    expect(failed.chunks_done).toBeLessThan(failed.chunks_total);
    expect(sa.exports(source).filter((r) => r.query.start === broken.start && r.query.type === broken.type)).toHaveLength(1);
    expect((await svc.req('POST', `/api/sites/${h}/imports/${id}/cancel`, { token: owner })).status).toBe(409);

    fail = false;
    const retry = await svc.req('POST', `/api/sites/${h}/imports/${id}/retry`, { token: owner, body: { config: { api_key: 'sa_api_key_rotated' } } });
    expect(retry.status, retry.text).toBe(200);
    const job = await waitJob(owner, h, id, settled);
    expect(job).toMatchObject({ status: 'succeeded', error: null, rows_imported: total, rows_skipped: 0 });
    expect(sa.exports(source).at(-1)?.headers['api-key']).toBe('sa_api_key_rotated');
    expect((await svc.req('POST', `/api/sites/${h}/imports/${id}/retry`, { token: owner })).status).toBe(409);
    sa.on(null);
  });

  it('retries 5xx with backoff and fails with the last answer when it persists; malformed CSV fails at once', { timeout: 60_000 }, async () => {
    const flaky = 'flaky-old.example';
    const seen = new Map<string, number>();
    sa.on((r) => {
      if (r.query.hostname !== flaky || isCredentialTest(r)) return undefined;
      const k = `${r.query.type} ${r.query.start}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
      return (seen.get(k) as number) <= 2 ? { status: 503, body: 'try later', headers: { 'retry-after': '0' } } : undefined;
    });
    const a = await newImport('flaky', flaky, generateDataset(start, end, 500, 100, 5));
    expect(await waitJob(owner, a.h, a.id, settled)).toMatchObject({ status: 'succeeded', rows_imported: a.total });

    const down = 'down-old.example';
    sa.on((r) => (r.query.hostname === down && !isCredentialTest(r) ? { status: 500, body: 'database on fire' } : undefined));
    const b = await newImport('down', down, generateDataset(start, end, 500, 100, 6));
    expect(await waitJob(owner, b.h, b.id, settled)).toMatchObject({ status: 'failed', error: 'SimpleAnalytics returned 500: database on fire', chunks_done: 0 });

    const garbled = 'garbled-old.example';
    sa.on((r) => (r.query.hostname === garbled && !isCredentialTest(r) ? { status: 200, body: 'added_unix,uuid,path\n1,"open\n' } : undefined));
    const c = await newImport('garbled', garbled, generateDataset(start, end, 10, 0, 7));
    const failed = await waitJob(owner, c.h, c.id, settled);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^SimpleAnalytics returned malformed CSV: /);
    // At once: no retries (two chunks were in flight side by side).
    expect(sa.exports(garbled).length).toBeLessThanOrEqual(2);
    sa.on(null);
  });

  it('answers 404 for unknown jobs and 403 for keys', async () => {
    const h = await svc.site(owner, { prefix: 'nojob' });
    const r = await svc.req('POST', `/api/sites/${h}/imports/0190f3a0-0000-7000-8000-000000000000/cancel`, { token: owner });
    expect([r.status, r.json.error]).toEqual([404, 'unknown import']);
    const { key } = await svc.key(owner, ['read', 'manage']);
    expect((await svc.req('POST', `/api/sites/${h}/imports/x/retry`, { token: key })).json.error).toBe('management keys cannot call this endpoint');
    expect((await svc.req('POST', `/api/sites/${h}/imports/x/retry`, { token: await svc.token('other') })).json.error).toBe('unknown site');
  });
});

describe('an API key echoed by the source', () => {
  const key = PLAUSIBLE_API_KEY;
  /** Where an echo starts so that the key straddles the 200-character cut, and a little either side. */
  const aroundTheCut = Array.from({ length: key.length + 5 }, (_, i) => MAX_SOURCE_ERROR_BODY - key.length - 2 + i);

  it('never reaches the 400 of a failed credential test, whatever its offset', async () => {
    const owner = await svc.token('echo-400-owner');
    const h = await svc.site(owner, { prefix: 'echo-400' });
    for (const offset of aroundTheCut) {
      sa.on((r) => (isCredentialTest(r) ? { status: 401, body: echoAt(key, offset) } : undefined));
      const r = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({ api_key: key }) });
      sa.on(null);
      expect(r.status, r.text).toBe(400);
      expect(r.json.error).toMatch(/^SimpleAnalytics returned 401: \./);
      expect(leakedPart(r.text, key), `offset ${offset}: ${r.text}`).toBeNull();
    }
  });

  it('never reaches a failed job\'s error, whatever its offset', { timeout: 60_000 }, async () => {
    const owner = await svc.token('echo-job-owner');
    const h = await svc.site(owner, { prefix: 'echo-job' });
    // A job each (at most 20 a day): both ends of the straddle, and between.
    const offsets = [...new Set([0, ...aroundTheCut.filter((_, i) => i % 6 === 0), MAX_SOURCE_ERROR_BODY - key.length, MAX_SOURCE_ERROR_BODY - 8, MAX_SOURCE_ERROR_BODY - 1])];
    for (const offset of offsets) {
      sa.on((r) => (isCredentialTest(r) ? undefined : { status: 403, body: echoAt(key, offset) }));
      const created = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({ api_key: key }) });
      expect(created.status, created.text).toBe(201);
      const job = await waitJob(owner, h, created.json.id, settled);
      sa.on(null);
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/^SimpleAnalytics returned 403: /);
      expect(leakedPart(JSON.stringify(job), key), `offset ${offset}: ${job.error}`).toBeNull();
    }
  });

  it('is refused before any request when it cannot be a key, on retry too', async () => {
    const owner = await svc.token('echo-retry-owner');
    const h = await svc.site(owner, { prefix: 'echo-retry' });
    const before = sa.requests.length;
    const r = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({ api_key: `${key}\r\nX-Injected: 1` }) });
    expect([r.status, r.json.error]).toEqual([400, 'API key is invalid']);
    expect(sa.requests.length).toBe(before);
    sa.on((req) => (isCredentialTest(req) ? undefined : { status: 401, body: 'revoked' }));
    const created = await svc.req('POST', `/api/sites/${h}/imports`, { token: owner, body: importBody({ api_key: key }) });
    await waitJob(owner, h, created.json.id, settled);
    sa.on(null);
    const retry = await svc.req('POST', `/api/sites/${h}/imports/${created.json.id}/retry`, { token: owner, body: { config: { api_key: 'not a key' } } });
    expect([retry.status, retry.json.error]).toEqual([400, 'API key is invalid']);
  });
});

describe('credentials at rest', () => {
  it('never logs the API key', () => {
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.filter((line) => line.includes(API_KEY) || line.includes('sa_api_key_rotated'))).toEqual([]);
  });
});
