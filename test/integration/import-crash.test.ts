/**
 * A crash between chunks: the real `npm start` process is killed with SIGKILL
 * while an import is half done (the in-process queue and the chunk in flight
 * are lost), the service starts
 * again on the same DATA_DIR, resumes the job from the registry and finishes
 * it without fetching a finished chunk again or counting a row twice.
 * (A crash inside a chunk is covered by import-worker.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planChunks } from '#domain/imports/planner.ts';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { startServerProcess, startTestService, type TestService } from '../support/local-node.ts';
import { generateDataset, isCredentialTest, startFakeSimpleAnalytics, type FakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';

const DAY_MS = 86_400_000;
const utcDay = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const firstOfMonth = (monthsBack: number) => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - monthsBack, 1)).toISOString().slice(0, 10);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sa: FakeSimpleAnalytics;
/** Registers the site and mints tokens from DATA_DIR; stopped before the server process starts on it. */
let setup: TestService;
let child: ChildProcess | null = null;
let second: TestService | null = null;

beforeAll(async () => {
  sa = await startFakeSimpleAnalytics();
  setup = await startTestService({ SIMPLEANALYTICS_BASE_URL: sa.url, IMPORT_RETRY_BASE_MS: '10' });
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await second?.stop();
  rmSync(setup.dataDir, { recursive: true, force: true });
  await sa.close();
});

async function waitFor<T>(read: () => Promise<T>, until: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (until(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await sleep(25);
  }
}

describe('a crash between chunks', () => {
  it('resumes after a restart without fetching a finished chunk again or double counting', { timeout: 90_000 }, async () => {
    const start = firstOfMonth(5);
    const end = utcDay(-1);
    const chunks = planChunks(start, end);
    const source = 'crashy-old.example';
    const data = generateDataset(start, end, 12_000, 3_000, 9);
    const total = data.pageviews.length + data.events.length;
    sa.setData(source, data);
    // The second half of the chunks never answers until the "crash".
    const half = Math.floor(chunks.length / 2);
    const heldBack = new Set(chunks.slice(half).map((c) => `${c.type} ${c.start}`));
    let crashed = false;
    sa.on((r) => (!crashed && r.query.hostname === source && !isCredentialTest(r) && heldBack.has(`${r.query.type} ${r.query.start}`) ? { hang: true } : undefined));

    const owner = await setup.token('crash-owner');
    const h = await setup.site(owner, { prefix: 'crash' });
    await setup.stop({ keepData: true });
    const env = { DATA_DIR: setup.dataDir, PORT: '0', HOST: '127.0.0.1', SIMPLEANALYTICS_BASE_URL: sa.url, IMPORT_RETRY_BASE_MS: '10' };
    const server = await startServerProcess(env);
    child = server.proc;
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${owner}` }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: r.status, text: await r.text() };
    };
    const created = await api('POST', `/api/sites/${h}/imports`, {
      source: 'simpleanalytics', range_start: start, range_end: end, config: { user_id: 'u', api_key: 'sa_api_key_crash', source_hostname: source },
    });
    expect(created.status, created.text).toBe(201);
    const id = (JSON.parse(created.text) as { id: string }).id;
    const job = async () => (JSON.parse((await api('GET', `/api/sites/${h}/imports`)).text) as { imports: { id: string; status: string; chunks_done: number }[] }).imports.find((j) => j.id === id);
    const before = await waitFor(job, (j) => (j?.chunks_done ?? 0) >= half && sa.exports(source).length > half);
    expect(before?.status).toBe('running');
    expect(before?.chunks_done).toBe(half);
    const fetchedBefore = sa.exports(source).map((r) => `${r.query.type} ${r.query.start}`);

    // The crash: SIGKILL with chunks in flight and the rest only in the process's memory queue.
    child.kill('SIGKILL');
    await server.exited;
    child = null;
    crashed = true;

    second = await startTestService({ DATA_DIR: setup.dataDir, SIMPLEANALYTICS_BASE_URL: sa.url, IMPORT_RETRY_BASE_MS: '10' });
    const after = await waitFor(() => second!.node.services.importJobs.getJob(h, id), (j) => j?.status !== 'running' && j?.status !== 'queued');
    expect(after).toMatchObject({ status: 'succeeded', chunks_done: chunks.length, rows_imported: total, rows_skipped: 0, error: null });

    // Finished chunks were not fetched again: every chunk completed exactly once.
    const fetchedAfter = sa.exports(source).slice(fetchedBefore.length).map((r) => `${r.query.type} ${r.query.start}`);
    const finishedFirst = new Set(chunks.slice(0, half).map((c) => `${c.type} ${c.start}`));
    expect(fetchedAfter.filter((k) => finishedFirst.has(k))).toEqual([]);
    expect(new Set(fetchedAfter)).toEqual(heldBack);

    const [stored] = await second.node.runtime.duckdb!.query<{ rows: bigint; distinct: bigint }>(
      'SELECT count(*) AS rows, count(DISTINCT source_id) AS distinct FROM events WHERE site = $site',
      { site: h },
    );
    expect([Number(stored?.rows), Number(stored?.distinct)]).toEqual([total, total]);
    // Tokens come from DATA_DIR's issuer key, which every node on it shares.
    const tok2 = await setup.token('crash-owner');
    const list = await second.req('GET', `/api/sites/${h}/imports`, { token: tok2 });
    expect(list.status, list.text).toBe(200);
    expect(list.json.imports[0]).toMatchObject({ id, status: 'succeeded', rows_imported: total });
  });
});
