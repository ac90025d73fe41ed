/**
 * Import throughput for `npm run bench`: a 14-month import of
 * ~200,000 rows from a fake Simple Analytics export served by this process,
 * into `npm start`'s service running in its own process. Rows per second
 * from the job's created_at to its finished_at (median of RUNS imports): HTTP download, CSV parsing,
 * mapping, de-duplication and the DuckDB writes, everything a real import does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { planChunks } from '#domain/imports/planner.ts';
import { generateDataset, startFakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';
import { startServer, type Server } from './service.ts';
import { fmt, median, RUNS, type BenchRow } from './stats.ts';

interface BenchJob {
  id: string;
  status: string;
  error: string | null;
  created_at: string;
  finished_at: string;
  chunks_total: number;
  rows_imported: number;
  rows_skipped: number;
}

export const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Median of RUNS imports, each into a fresh service and data directory, from the same fake export; `engine` names the event store `env` selects (DuckDB without it). */
export async function importBench(verifyTemplate: string, engine = 'DuckDB', env: () => Promise<{ env: Record<string, string>; close: () => Promise<void> }> = noEnv): Promise<BenchRow[]> {
  const sa = await startFakeSimpleAnalytics();
  try {
    const end = day(-1);
    const start = day(-395);
    sa.setData(SOURCE, generateDataset(start, end, 170_000, 30_000, 11));
    sa.warm(SOURCE, planChunks(start, end));
    const runs: ImportRun[] = [];
    for (let run = 0; run < RUNS; run++) {
      const store = await env();
      try {
        runs.push(await importRun(sa.url, verifyTemplate, start, end, store.env));
      } finally {
        await store.close();
      }
    }
    const perSecond = median(runs.map((r) => r.perSecond));
    const { rows, chunks } = runs[0] as ImportRun;
    return [
      {
        name: `import: ${fmt(rows)} rows, ${chunks} chunks (14 months), fake export → ${engine}; median of ${RUNS} runs`,
        value: `${fmt(perSecond)} rows/s (runs: ${runs.map((r) => `${fmt(r.perSecond)} in ${r.seconds.toFixed(1)} s`).join(', ')})`,
        budget: '≥ 50,000 rows/s',
        ok: perSecond >= 50_000,
      },
    ];
  } finally {
    await sa.close();
  }
}

const SOURCE = 'bench-old.example';

const noEnv = async () => ({ env: {}, close: async () => undefined });

interface ImportRun {
  rows: number;
  chunks: number;
  seconds: number;
  perSecond: number;
}

async function importRun(saUrl: string, verifyTemplate: string, start: string, end: string, env: Record<string, string>): Promise<ImportRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-import-'));
  let server: Server | null = null;
  try {
    server = await startServer(dataDir, verifyTemplate, { SIMPLEANALYTICS_BASE_URL: saUrl, ...env });
    const auth = { authorization: `Bearer ${await mintIdToken(loadIssuerKey(dataDir), 'bench-importer')}` };
    const site = 'bench-import.example';
    await fetch(`${server.url}/api/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ hostname: site }) });
    await fetch(`${server.url}/api/sites/${site}/verify`, { method: 'POST', headers: auth });
    const job = await importAndWait(server.url, auth, site, SOURCE, start, end);
    const seconds = (Date.parse(job.finished_at) - Date.parse(job.created_at)) / 1000;
    const rows = job.rows_imported + job.rows_skipped;
    return { rows, chunks: job.chunks_total, seconds, perSecond: rows / seconds };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Starts a Simple Analytics import of `source`'s export (start..end) into `site` through the API and waits until it succeeds; the finished job. */
export async function importAndWait(url: string, auth: Record<string, string>, site: string, source: string, start: string, end: string): Promise<BenchJob> {
  const created = await fetch(`${url}/api/sites/${site}/imports`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ source: 'simpleanalytics', range_start: start, range_end: end, config: { user_id: 'sa_user', api_key: 'sa_api_key_import_bench', source_hostname: source } }),
  });
  if (created.status !== 201) throw new Error(`import not created: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const list = (await (await fetch(`${url}/api/sites/${site}/imports`, { headers: auth })).json()) as { imports: BenchJob[] };
    const job = list.imports.find((j) => j.id === id);
    if (!job || job.status === 'queued' || job.status === 'running') continue;
    if (job.status !== 'succeeded') throw new Error(`import ${job.status}: ${job.error}`);
    return job;
  }
}
