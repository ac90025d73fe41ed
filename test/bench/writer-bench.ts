/**
 * The writer's benchmark: rows per second through the writer as `npm start`
 * runs it (the in-process event queue hands the store batches of
 * EVENT_BATCH_SIZE, EVENT_WRITES_IN_FLIGHT at a time), into an empty store
 * and onto a big day: a store already holding BENCH_WRITER_PREFILL (default
 * 10,000,000) rows of the same UTC day. The same BENCH_WRITER_ROWS (default
 * 1,000,000) rows are measured in both, RUNS rounds of each, alternating;
 * medians count, every run is listed.
 *
 * The day is today's UTC day: its rows spread evenly from 00:00 UTC to the
 * bench's start (none in the future), the prefill first, the measured rows
 * the latest. Row shape (dayRowsSql): one site; ~70 % pageviews, ~20 % appends
 * naming a pageview 10–1,000 rows (a few seconds) earlier in the same part,
 * so in the same or an earlier batch, ~10 % events; about one visitor per 4
 * rows, a fifth of the measured rows' visitors already seen in the prefill;
 * every id unique. The prefill is made with SQL and handed to the store with
 * saveSelected in 100k-row chunks in ts order, then the store is closed.
 *
 * Each measured run is a process of its own (this file run directly), as the
 * server's writer is: it opens the store (the open's time and the RSS it
 * adds are reported: the store may rebuild in-memory structures from its
 * rows), then writes the rows. Quick trial:
 * BENCH_ONLY=writer BENCH_WRITER_PREFILL=500000 npm run bench.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';
import { withClickHouse } from './clickhouse-bench.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { QueueFullError } from '#domain/queue-full.ts';
import type { MemoryQueue } from '#adapters/memory-queue/memory-queue.ts';
import { createEventQueue, EVENT_BATCH_SIZE, EVENT_WRITES_IN_FLIGHT } from '#local/adapters.ts';
import { envNumber, fmt, median, percent, RUNS, type BenchRow } from './stats.ts';
import { dimensionColumns } from './seed-columns.ts';
import { log } from '#platform/log.ts';

const SITE = 'writer.example';
/** Rows handed to saveSelected at once while prefilling. */
const PREFILL_CHUNK = 100_000;

/** A day of `total` rows, row j at `start + j * span / total` (ms). */
interface Day {
  start: number;
  span: number;
  total: number;
}

/** Rows `first` … `first + count - 1` of the day: the prefill or the measured rows. */
interface Part {
  first: number;
  count: number;
}

/**
 * Rows `from` … `to - 1` of `part` as the event columns (EventRow's names).
 * Row j's kind comes from its index i in the part; an append's parent
 * (`page`) is a pageview of the same part 10–1,000 rows earlier, whose
 * visitor, path and source it shares. Visitors: a part of n rows has n/4
 * new ones; a fifth of its pages go to visitors of the parts before it.
 */
export function dayRowsSql(day: Day, part: Part, from: number, to: number): string {
  const earlier = Math.floor(part.first / 4);
  const fresh = Math.max(1, Math.floor(part.count / 4));
  const visitor = earlier > 0 ? `CASE WHEN h % 5 = 0 THEN h % ${earlier} ELSE ${earlier} + h % ${fresh} END` : `h % ${fresh}`;
  return `
    SELECT '${SITE}' AS site, 'reg-bench' AS registration, ${day.start} + j * ${day.span} // ${day.total} AS ts, kind,
      'd' || j AS id, CASE WHEN kind = 'append' THEN 'd' || page END AS original_id,
      CASE WHEN kind = 'event' THEN 'event_' || (h % 20) END AS event,
      'v' || (${visitor}) AS visitor, i % 5 = 0 AS "unique", NULL AS page_id, NULL AS session_id,
      '/page/' || (h % 300) AS path, NULL AS query, NULL AS referrer,${dimensionColumns('h')}
      CASE WHEN kind = 'append' THEN (i % 120)::INTEGER END AS duration, CASE WHEN kind = 'append' THEN (i % 101)::INTEGER END AS scrolled,
      h % 50 = 0 AS bot, NULL AS metadata, true AS https, false AS imported, NULL AS source_id
    FROM (SELECT *, (hash(page) >> 1)::BIGINT AS h FROM (
      SELECT j, i, kind, CASE WHEN kind = 'append' THEN j - i % 10 - 10 * (1 + (hash(j) % 99)::BIGINT) + 3 + (hash(j) % 7)::BIGINT ELSE j END AS page
      FROM (SELECT j, i, CASE WHEN i < 1000 OR i % 10 > 2 THEN 'pageview' WHEN i % 10 = 0 THEN 'event' ELSE 'append' END AS kind
        FROM (SELECT j, j - ${part.first} AS i FROM range(${from}, ${to}) t(j)))))
    ORDER BY j`;
}

/** Stores the prefill into a new store at `path` through saveSelected, in ts order, then closes it. */
async function prefillDay(path: string, day: Day, prefill: Part): Promise<void> {
  const store = await DuckDbEventStore.open(path, { log });
  try {
    const started = performance.now();
    for (let from = prefill.first; from < prefill.first + prefill.count; from += PREFILL_CHUNK) {
      await store.saveSelected(dayRowsSql(day, prefill, from, Math.min(prefill.first + prefill.count, from + PREFILL_CHUNK)));
      if ((from + PREFILL_CHUNK) % 1_000_000 === 0) console.error(`bench: writer prefill ${fmt(from + PREFILL_CHUNK)} rows, ${fmt((performance.now() - started) / 1000)} s`);
    }
  } finally {
    await store.close();
  }
}

/** What one measured run (its own process) reports. */
interface WriterRun {
  openMs: number;
  openRssMb: number;
  perSecond: number;
}

interface WriterRunArgs {
  /** The store's directory: empty, or holding the prefilled events.duckdb. */
  dir: string;
  day: Day;
  measured: Part;
  /** Rows of the site the store holds before the run. */
  storedBefore: number;
}

const RESULT_PREFIX = 'writer-run ';

/** Runs one measured run in a process of its own (this file), so its open and memory start clean. */
function writerRunProcess(args: WriterRunArgs): Promise<WriterRun> {
  const child = spawn(process.execPath, ['--max-old-space-size=6144', '--import', 'tsx', fileURLToPath(import.meta.url), JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((ok, fail) => {
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code === 0 && line) ok(JSON.parse(line.slice(RESULT_PREFIX.length)) as WriterRun);
      else fail(new Error(`writer run exited with ${code}: ${out.slice(-500)}`));
    });
  });
}

/** Sends rows a batch at a time as producers would, waiting while the queue is at its bound (rows or bytes). */
async function sendAll(queue: MemoryQueue<EventRow>, rows: readonly EventRow[]): Promise<void> {
  for (let i = 0; i < rows.length; ) {
    const batch = rows.slice(i, i + EVENT_BATCH_SIZE);
    try {
      await queue.sendBatch(batch);
      i += batch.length;
    } catch (e) {
      if (!(e instanceof QueueFullError)) throw e;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/** The measured rows as the collector hands them to the queue (made before the clock starts). */
async function measuredRows(day: Day, measured: Part): Promise<EventRow[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(dayRowsSql(day, measured, measured.first, measured.first + measured.count));
    return reader.getRowObjectsJS().map((r) => ({ ...r, ts: Number(r.ts) }) as unknown as EventRow);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** One measured run, in this process: open the store, write the rows through the local queue, check they are all stored. */
async function writerRun({ dir, day, measured, storedBefore }: WriterRunArgs): Promise<WriterRun> {
  const rows = await measuredRows(day, measured);
  const rssBefore = process.memoryUsage().rss;
  const opening = performance.now();
  const store = await DuckDbEventStore.open(join(dir, 'events.duckdb'), { log });
  const openMs = performance.now() - opening;
  const openRssMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const queue = createEventQueue(store, dir);
  try {
    const started = performance.now();
    await sendAll(queue, rows);
    await queue.drain();
    const perSecond = rows.length / ((performance.now() - started) / 1000);
    if (queue.deadLettered > 0) throw new Error(`writer bench: ${queue.deadLettered} rows dead-lettered`);
    const [stored] = await store.query<{ n: bigint }>(`SELECT count(*) AS n FROM events WHERE site = '${SITE}'`);
    if (Number(stored?.n) !== storedBefore + rows.length) throw new Error(`writer bench: ${stored?.n} rows stored, expected ${storedBefore} + ${rows.length}`);
    return { openMs, openRssMb, perSecond };
  } finally {
    queue.stop();
    await store.close();
  }
}

/** Today's UTC day up to now (at least a minute, so rows do not pile onto a few milliseconds just after midnight). */
function today(total: number): Day {
  const now = Date.now();
  const start = now - (now % 86_400_000);
  return { start, span: Math.max(now - start, 60_000), total };
}

/** A copy of the prefilled store in a directory of its own, so every run starts from the same file. */
function copyOf(prefilled: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tt-bench-writer-'));
  copyFileSync(prefilled, join(dir, 'events.duckdb'));
  if (existsSync(`${prefilled}.wal`)) copyFileSync(`${prefilled}.wal`, join(dir, 'events.duckdb.wal'));
  return dir;
}

/** Rows of the day stored before the measured ones, and rows measured (see the file's header). */
export function writerSettings() {
  return { prefill: envNumber('BENCH_WRITER_PREFILL', 10_000_000), rows: envNumber('BENCH_WRITER_ROWS', 1_000_000) };
}

export async function writerBench(): Promise<BenchRow[]> {
  const { prefill, rows: count } = writerSettings();
  const day = today(prefill + count);
  const measured: Part = { first: prefill, count };
  const work = mkdtempSync(join(tmpdir(), 'tt-bench-prefill-'));
  const dirs: string[] = [work];
  try {
    const prefilled = join(work, 'events.duckdb');
    const seeding = performance.now();
    await prefillDay(prefilled, day, { first: 0, count: prefill });
    const prefillSeconds = (performance.now() - seeding) / 1000;
    const empty: WriterRun[] = [];
    const big: WriterRun[] = [];
    // Alternating, so a slow spell of this shared machine falls on both.
    for (let run = 0; run < RUNS; run++) {
      dirs.push(mkdtempSync(join(tmpdir(), 'tt-bench-writer-')));
      empty.push(await writerRunProcess({ dir: dirs[dirs.length - 1] as string, day, measured, storedBefore: 0 }));
      dirs.push(copyOf(prefilled));
      big.push(await writerRunProcess({ dir: dirs[dirs.length - 1] as string, day, measured, storedBefore: prefill }));
      console.error(`bench: writer round ${run + 1}: empty ${fmt(empty[run]!.perSecond)} rows/s, big day ${fmt(big[run]!.perSecond)} rows/s`);
    }
    const rate = (runs: WriterRun[]) => median(runs.map((r) => r.perSecond));
    const listed = (runs: WriterRun[], value: (r: WriterRun) => number, unit: string) =>
      `${fmt(median(runs.map(value)))} ${unit} (runs: ${runs.map((r) => fmt(value(r))).join(', ')})`;
    const ratios = big.map((b, i) => b.perSecond / (empty[i] as WriterRun).perSecond);
    const ratio = median(ratios);
    const dayName = new Date(day.start).toISOString().slice(0, 10);
    const shape = `${fmt(count)} rows of ${dayName} UTC through the local queue (batches of up to ${fmt(EVENT_BATCH_SIZE)}, ${EVENT_WRITES_IN_FLIGHT} in flight); median of ${RUNS} runs`;
    return [
      {
        name: `writer prefill: ${fmt(prefill)} rows of ${dayName} UTC, one site (70 % pageviews, 20 % appends, 10 % events, ~1 visitor per 4 rows), SQL through saveSelected in ${fmt(PREFILL_CHUNK)}-row chunks in ts order`,
        value: `${prefillSeconds.toFixed(1)} s (${fmt(prefill / prefillSeconds)} rows/s)`,
      },
      { name: `writer store open, ${fmt(prefill)} rows of the day (reopened after the prefill; empty store for comparison)`, value: `${listed(big, (r) => r.openMs, 'ms')}; empty: ${listed(empty, (r) => r.openMs, 'ms')}` },
      { name: 'RSS the open adds to the writer\'s process (`process.memoryUsage().rss` before and after)', value: `${listed(big, (r) => r.openRssMb, 'MiB')}; empty: ${listed(empty, (r) => r.openRssMb, 'MiB')}` },
      { name: `writer into an empty store: ${shape}`, value: listed(empty, (r) => r.perSecond, 'rows/s'), budget: '≥ 100,000 rows/s', ok: rate(empty) >= 100_000 },
      { name: `writer onto ${fmt(prefill)} rows of the same day: ${shape}`, value: listed(big, (r) => r.perSecond, 'rows/s'), budget: '≥ 100,000 rows/s', ok: rate(big) >= 100_000 },
      {
        name: `writer onto the big day as a share of the empty store's rate, same round (median of ${RUNS} rounds)`,
        value: `${percent(ratio)} (rounds: ${ratios.map(percent).join(', ')})`,
        budget: '90–110 % (within 10 %)',
        ok: Math.abs(ratio - 1) <= 0.1,
      },
    ];
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same measured rows through the local queue into ClickHouse (chDB behind its HTTP stand-in in
 * this process, as `npm start` with CLICKHOUSE_URL would write to a server): into an empty database,
 * RUNS runs, each into a database of its own.
 */
export async function clickHouseWriterBench(): Promise<BenchRow[]> {
  const { rows: count } = writerSettings();
  const day = today(count);
  const measured: Part = { first: 0, count };
  return withClickHouse('unused', async (settings) => {
    const runs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const database = `writer_${run}`;
      const store = await ClickHouseEventStore.open(clickHouseHttpExecutor({ ...settings, database, requestTimeoutMs: 10 * 60_000 }), database, log);
      const dir = mkdtempSync(join(tmpdir(), 'tt-bench-writer-ch-'));
      const queue = createEventQueue(store, dir);
      try {
        const rows = await measuredRows(day, measured);
        const started = performance.now();
        await sendAll(queue, rows);
        await queue.drain();
        runs.push(rows.length / ((performance.now() - started) / 1000));
        if (queue.deadLettered > 0) throw new Error(`writer bench (ClickHouse): ${queue.deadLettered} rows dead-lettered`);
        const [stored] = await store.executor.query<{ n: number }>(`SELECT count() AS n FROM ${store.table} WHERE site = {site:String}`, { site: SITE });
        if (Number(stored?.n) !== rows.length) throw new Error(`writer bench (ClickHouse): ${stored?.n} rows stored, expected ${rows.length}`);
      } finally {
        queue.stop();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
      console.error(`bench: ClickHouse writer run ${run + 1}: ${fmt(runs[run] as number)} rows/s`);
    }
    const rate = median(runs);
    return [
      {
        name: `ClickHouse (chDB): writer into an empty database, ${fmt(count)} rows through the local queue (batches of up to ${fmt(EVENT_BATCH_SIZE)}); median of ${RUNS} runs`,
        value: `${fmt(rate)} rows/s (runs: ${runs.map(fmt).join(', ')})`,
        budget: '≥ 100,000 rows/s',
        ok: rate >= 100_000,
      },
    ];
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await writerRun(JSON.parse(process.argv[2] as string) as WriterRunArgs);
  console.log(`${RESULT_PREFIX}${JSON.stringify(result)}`);
}
