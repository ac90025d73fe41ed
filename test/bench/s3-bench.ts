/**
 * The S3 event store (issue 44) against the local S3 server (s3rver) and dynalite, in-process:
 * the writer's rows/s (batches of the stack's 5,000 rows into one UTC day), the compaction of that
 * day, and the reports' medians over a site of BENCH_S3_SITE_ROWS rows (one compacted file a day
 * over 365 days), for 30 and 365 days, warm (the mirror holds the days) and with an empty cache
 * (a new mirror and object cache: a cold reports function).
 */
import { randomUUID } from 'node:crypto';
import type { EventRow } from '#domain/rows/event-row.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { getBreakdown, getOverview, getOverviewSummary, type ReportRequest } from '#reports/reports.ts';
import type { ReportStore } from '#ports/report-store.ts';
import { startLocalS3 } from '../support/s3-events.ts';
import { eventRow } from '../contract/event-store.contract.ts';
import { envNumber, fmt, median, type BenchRow } from './stats.ts';

const REGISTRATION = 'reg-bench';
const PATHS = ['/', '/pricing', '/blog/a', '/blog/b', '/docs', '/about'];
const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'NL'];
const BATCH = 5_000;

/** `n` pageviews of `site` spread over the UTC day `day`. */
function dayRows(site: string, day: number, n: number): EventRow[] {
  return Array.from({ length: n }, (_, i) =>
    eventRow({
      site,
      registration: REGISTRATION,
      ts: day * DAY_MS + Math.floor((i * DAY_MS) / n),
      id: randomUUID(),
      visitor: `v${i % 5_000}`,
      unique: i % 3 === 0,
      path: PATHS[i % PATHS.length] as string,
      country: COUNTRIES[i % COUNTRIES.length] as string,
      referrer_host: i % 4 === 0 ? 'news.example' : null,
      browser: i % 2 ? 'Firefox' : 'Chrome',
      device: 'desktop',
      os: 'Linux',
    }),
  );
}

const ms = (t: number) => `${t.toFixed(0)} ms`;

/** The medians of each report of the overview page over `days`, each read `n` times (`fresh` before each: a cold function). */
async function reportTimes(reports: () => Promise<ReportStore>, site: string, now: number, days: number, n: number, fresh: boolean): Promise<Record<string, number>> {
  const q: ReportRequest = { site, registration: REGISTRATION, range: { from: Math.floor((now - days * DAY_MS) / 1000), to: Math.floor(now / 1000) }, tz: 'UTC', filters: [], now: Math.floor(now / 1000) };
  const reads: Record<string, (store: ReportStore) => Promise<unknown>> = {
    overview: (s) => getOverview(s, q),
    summary: (s) => getOverviewSummary(s, q, 10),
    pages: (s) => getBreakdown(s, q, 'pages', 10),
    countries: (s) => getBreakdown(s, q, 'countries', 10),
  };
  const out: Record<string, number> = {};
  for (const [name, read] of Object.entries(reads)) {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const store = await reports();
      const t = performance.now();
      await read(store);
      times.push(performance.now() - t);
    }
    // Warm: the first read loads the days; the rest are the warm ones.
    out[name] = median(fresh ? times : times.slice(1));
  }
  return out;
}

export async function s3Bench(): Promise<BenchRow[]> {
  const writerRows = envNumber('BENCH_S3_WRITER_ROWS', 1_000_000);
  const siteRows = envNumber('BENCH_S3_SITE_ROWS', 10_000_000);
  const local = await startLocalS3();
  const rows: BenchRow[] = [];
  try {
    const events = await local.open();
    const writer = await events.writer();
    const day = Math.floor(Date.now() / DAY_MS) - 1;
    let t = performance.now();
    for (let i = 0; i < writerRows; i += BATCH) await writer.saveEvents(dayRows('writer.example', day, Math.min(BATCH, writerRows - i)));
    const writeSeconds = (performance.now() - t) / 1000;
    rows.push({ name: `S3 writer: ${fmt(writerRows)} rows of one day in batches of ${fmt(BATCH)}`, value: `${fmt(writerRows / writeSeconds)} rows/s` });
    t = performance.now();
    await events.compact();
    rows.push({ name: `S3 compaction: the ${fmt(writerRows / BATCH)} files of that day into one`, value: `${((performance.now() - t) / 1000).toFixed(1)} s` });

    const site = 'reports.example';
    const now = (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS;
    const perDay = Math.ceil(siteRows / 365);
    for (let d = 1; d <= 365; d++) await writer.saveEvents(dayRows(site, Math.floor(now / DAY_MS) - d, perDay));
    const warm = await events.reports();
    for (const days of [30, 365]) {
      const hot = await reportTimes(async () => warm, site, now, days, 11, false);
      const cold = await reportTimes(async () => (await local.open({ table: events.manifest.table })).reports(), site, now, days, 3, true);
      for (const name of Object.keys(hot)) {
        rows.push({ name: `S3 ${name}, ${days} days of ${fmt(siteRows)} rows: warm`, value: ms(hot[name] as number), budget: '< 150 ms', ok: (hot[name] as number) < 150 });
        rows.push({ name: `S3 ${name}, ${days} days of ${fmt(siteRows)} rows: empty cache`, value: ms(cold[name] as number), budget: '< 2 s', ok: (cold[name] as number) < 2_000 });
      }
    }
  } finally {
    await local.close();
  }
  return rows;
}
