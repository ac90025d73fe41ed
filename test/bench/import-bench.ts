/**
 * Import throughput for `npm run bench` (issue 5): a 14-month import of
 * ~200,000 rows from a fake Simple Analytics export served by this process,
 * into `npm start`'s service running in its own process. Rows per second
 * from the job's created_at to its finished_at: HTTP download, CSV parsing,
 * mapping, de-duplication and the DuckDB writes, everything a real import does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { planChunks } from '#domain/imports/planner.ts';
import { generateDataset, startFakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';
import type { BenchRow } from './run.ts';
import { startServer, type Server } from './service.ts';

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

const fmt = (n: number) => Math.round(n).toLocaleString('en');
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

export async function importBench(verifyTemplate: string): Promise<BenchRow[]> {
  const sa = await startFakeSimpleAnalytics();
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-import-'));
  let server: Server | null = null;
  try {
    server = await startServer(dataDir, verifyTemplate, { SIMPLEANALYTICS_BASE_URL: sa.url });
    const { url } = server;
    const end = day(-1);
    const start = day(-395);
    const source = 'bench-old.example';
    sa.setData(source, generateDataset(start, end, 170_000, 30_000, 11));
    sa.warm(source, planChunks(start, end));
    const auth = { authorization: `Bearer ${await mintIdToken(loadIssuerKey(dataDir), 'bench-importer')}` };
    const site = 'bench-import.example';
    await fetch(`${url}/api/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ hostname: site }) });
    await fetch(`${url}/api/sites/${site}/verify`, { method: 'POST', headers: auth });
    const created = await fetch(`${url}/api/sites/${site}/imports`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ source: 'simpleanalytics', range_start: start, range_end: end, config: { user_id: 'sa_user', api_key: 'sa_key', source_hostname: source } }),
    });
    if (created.status !== 201) throw new Error(`import not created: ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const list = (await (await fetch(`${url}/api/sites/${site}/imports`, { headers: auth })).json()) as { imports: BenchJob[] };
      const job = list.imports.find((j) => j.id === id);
      if (!job || job.status === 'queued' || job.status === 'running') continue;
      if (job.status !== 'succeeded') throw new Error(`import ${job.status}: ${job.error}`);
      const seconds = (Date.parse(job.finished_at) - Date.parse(job.created_at)) / 1000;
      const rows = job.rows_imported + job.rows_skipped;
      const perSecond = rows / seconds;
      return [
        {
          name: `import: ${fmt(rows)} rows, ${job.chunks_total} chunks (14 months), fake export → DuckDB`,
          value: `${fmt(perSecond)} rows/s (${seconds.toFixed(1)} s)`,
          budget: '≥ 50,000 rows/s',
          ok: perSecond >= 50_000,
        },
      ];
    }
  } finally {
    await server?.stop();
    await sa.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
