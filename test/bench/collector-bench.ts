/**
 * The collector's benchmarks: `POST /events` against `npm start` in its own
 * process, held to a bare node:http server in its own process, the load
 * from autocannon in the bench process. Every load, the baseline's too, is
 * real traffic (traffic.ts): a new `id` per beacon, TRAFFIC_VISITORS visitors
 * (user agents), several paths, referrers and timezones, within one UTC day.
 *
 * collectorBench: RUNS rounds of 5 s at 20 and at CAPACITY_CONNECTIONS.
 *
 * longCollectorBench (BENCH_ONLY=long): the collector busy for
 * BENCH_LONG_SECONDS (default 300) or until BENCH_LONG_MAX (default
 * 2,000,000) beacons are answered, whichever comes first, read every
 * BENCH_LONG_MINUTE seconds (default 60): beacons answered 2xx per second as
 * a share of the bare server's rate, and the server's CPU time per beacon
 * (utime + stime of every thread of its process, /proc/<pid>/stat) against
 * the bare server's per request. The bare server runs one BENCH_LONG_MINUTE
 * before the long run and one after, the same load; the shares are of their
 * mean. Then the server is stopped (its queue drained) and its DuckDB file
 * must hold every beacon answered 2xx exactly once. Quick trial:
 * BENCH_ONLY=long BENCH_LONG_SECONDS=60 BENCH_LONG_MINUTE=15 npm run bench.
 * The run stays on one UTC day: if it would cross 00:00 UTC it waits for
 * midnight first (the rows of one run then share the day's salt and the
 * store's day).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { cpuSeconds, listeningUrl, load, ownerSession, rps, startServer, threadCpu, type Server, type ThreadCpu } from './service.ts';
import { envNumber, fmt, median, percent, RUNS, type BenchRow } from './stats.ts';
import { TRAFFIC_VISITORS, trafficRequests } from './traffic.ts';
import { log } from '#platform/log.ts';

/** The bare node:http server answering `ok`; with `spinMicros`, after that long busy on the CPU per request (collector-phases.ts). */
const bareServer = (spinMicros: number) => {
  const spin = spinMicros > 0 ? ` const until = performance.now() + ${spinMicros / 1000}; while (performance.now() < until);` : '';
  return `require('node:http').createServer((req, res) => { req.resume();${spin} res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); })
  .listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });`;
};

const BENCH_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** One fixed beacon without an `id` (the collector assigns one), for benches that send a few; the collector's loads send real traffic (traffic.ts). */
export const beaconBody = (hostname: string) => JSON.stringify({ hostname, path: '/pricing', ua: BENCH_UA, timezone: 'Europe/Berlin' });

/** Real traffic (traffic.ts) for `hostname` over `connections`, with `headers` on every beacon. */
function beaconLoad(url: string, hostname: string, headers: Record<string, string> = {}, connections = 20): Promise<autocannon.Result> {
  const requests = trafficRequests(hostname).map((r) => ({ ...r, headers: { ...r.headers, ...headers } }));
  return load(url, { requests, connections });
}

/**
 * Connections at which the collector is busy all the time. At 20 each
 * beacon's round trip includes the journal's fdatasync, so that load measures
 * latency (20 ÷ round trip), not what the collector can take: measured here,
 * the same collector took ~5.3k req/s at 100 connections against ~4.5k at 20.
 */
const CAPACITY_CONNECTIONS = 100;

/**
 * Runs `measure` against a bare node:http server answering `ok`: the
 * baseline the collector is held to. It runs in its own process, as `npm
 * start` does: served from the load tool's own event loop it would share a
 * core with the load and read lower (measured here 46k req/s in-process
 * against 73k in its own process).
 */
export async function withBareServer<T>(measure: (url: string, pid: number) => Promise<T>, spinMicros = 0): Promise<T> {
  const child = spawn(process.execPath, ['-e', bareServer(spinMicros)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    return await measure(await listeningUrl(child), child.pid as number);
  } finally {
    child.kill('SIGTERM');
  }
}

/**
 * RUNS rounds of the baseline, the collector (durable receipt, as `npm start`
 * runs it) and the same collector with the journal off; the round with the
 * median share is shown, every share listed. The journal's cost is the
 * collector's rate with it against without, same round.
 */
export async function collectorBench(server: Server, undurable: Server): Promise<BenchRow[]> {
  const hostname = 'bench-collector.example';
  await (await ownerSession(server)).register(hostname);
  await (await ownerSession(undurable)).register(hostname);
  const rounds: { bare: autocannon.Result; collector: autocannon.Result; share: number; journalCost: number; journalCostAt20: number }[] = [];
  const slower = (journaled: autocannon.Result, plain: autocannon.Result) => 1 - journaled.requests.average / plain.requests.average;
  for (let run = 0; run < RUNS; run++) {
    const bare = await withBareServer((url) => beaconLoad(url, hostname));
    const collector = await beaconLoad(server.url, hostname);
    const withoutJournal = await beaconLoad(undurable.url, hostname);
    const busy = await beaconLoad(server.url, hostname, {}, CAPACITY_CONNECTIONS);
    const busyWithoutJournal = await beaconLoad(undurable.url, hostname, {}, CAPACITY_CONNECTIONS);
    rounds.push({
      bare,
      collector,
      share: collector.requests.average / bare.requests.average,
      journalCost: slower(busy, busyWithoutJournal),
      journalCostAt20: slower(collector, withoutJournal),
    });
  }
  const share = median(rounds.map((r) => r.share));
  const journalCost = median(rounds.map((r) => r.journalCost));
  const journalCostAt20 = median(rounds.map((r) => r.journalCostAt20));
  const { bare, collector } = rounds.find((r) => r.share === share) ?? (rounds[0] as (typeof rounds)[number]);
  // Where the collector's time goes: the same requests, answered alike, but dropped before
  // enrichment and storage (DNT, right after parsing) or after the site look-up (not registered).
  const dnt = await beaconLoad(server.url, hostname, { dnt: '1' });
  const unregistered = await beaconLoad(server.url, 'not-registered.example');
  const ofBare = (r: autocannon.Result) => `${rps(r)}, ${percent(r.requests.average / bare.requests.average)} of the baseline`;
  return [
    { name: 'bare node:http `ok` in its own process (baseline, same requests)', value: rps(bare) },
    { name: 'collector POST /events (durable receipt: journaled before the 200)', value: rps(collector), budget: '≥ 50 % of baseline', ok: share >= 0.5 },
    { name: `collector share of baseline (median of ${RUNS} rounds)`, value: `${percent(share)} (rounds: ${rounds.map((r) => percent(r.share)).join(', ')})`, budget: '≥ 50 %', ok: share >= 0.5 },
    {
      name: `durable receipt's cost: collector with the journal against \`DURABLE_RECEIPT=0\`, ${CAPACITY_CONNECTIONS} connections (the collector busy; median of ${RUNS} rounds)`,
      value: `${percent(journalCost)} slower (rounds: ${rounds.map((r) => percent(r.journalCost)).join(', ')})`,
      budget: '≤ 10 %',
      ok: journalCost <= 0.1,
    },
    {
      name: `the same at 20 connections (each round trip waits for an fdatasync; median of ${RUNS} rounds)`,
      value: `${percent(journalCostAt20)} slower (rounds: ${rounds.map((r) => percent(r.journalCostAt20)).join(', ')})`,
    },
    { name: 'same beacons with `DNT: 1` (parsed, then nothing stored)', value: ofBare(dnt) },
    { name: 'same beacons for an unregistered hostname (looked up, nothing stored)', value: ofBare(unregistered) },
  ];
}

/** One reading interval of a timed load: requests answered 2xx in it and the server's CPU seconds over it. */
interface Slice {
  startedAt: Date;
  seconds: number;
  answered: number;
  cpuSeconds: number;
  rssMb: number | null;
}

/** CPU seconds a group of threads spent over a timed load: the main thread, or the other threads of one name. */
interface ThreadGroupCpu {
  group: string;
  threads: number;
  user: number;
  system: number;
}

/** What each thread group of process `pid` spent since `before` (threads that ended meanwhile are not counted). */
function threadGroupsSince(pid: number, before: Map<string, ThreadCpu>): ThreadGroupCpu[] {
  const groups = new Map<string, ThreadGroupCpu>();
  for (const [tid, now] of threadCpu(pid)) {
    const then = before.get(tid);
    const group = tid === String(pid) ? 'main thread' : now.name;
    const g = groups.get(group) ?? { group, threads: 0, user: 0, system: 0 };
    g.threads++;
    g.user += now.user - (then?.user ?? 0);
    g.system += now.system - (then?.system ?? 0);
    groups.set(group, g);
  }
  return [...groups.values()].sort((a, b) => b.user + b.system - (a.user + a.system));
}

/** Thread groups as `main thread 80 µs (user 50, kernel 30); …` per answered request. */
function perRequestByThread(groups: readonly ThreadGroupCpu[], answered: number): string {
  const us = (seconds: number) => fmt((seconds / answered) * 1e6);
  return groups
    .filter((g) => g.user + g.system > 0)
    .map((g) => `${g.group}${g.threads > 1 ? ` (${g.threads} threads)` : ''} ${us(g.user + g.system)} µs (user ${us(g.user)}, kernel ${us(g.system)})`)
    .join('; ');
}

interface TimedLoad {
  slices: Slice[];
  /** CPU by thread group over the whole load. */
  threads: ThreadGroupCpu[];
  /** Every 2xx answer, including those of the requests in flight when the last slice was read. */
  answered: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** autocannon's per-connection request limit (what its `amount` option sets), not in its types. */
interface ClientLimit {
  responseMax: number;
  reqsMade: number;
}

/**
 * POSTs real traffic (traffic.ts) over CAPACITY_CONNECTIONS connections for `seconds` or
 * until `max` answers, reading the 2xx count and process `pid`'s CPU time
 * every `sliceSeconds`. At the end each connection stops after the answer to
 * its request in flight instead of dropping it, so every beacon the server
 * received was answered and counted (a dropped one could be stored unanswered).
 */
function timedLoad(url: string, pid: number, hostname: string, seconds: number, sliceSeconds: number, max: number, rssMb?: () => number): Promise<TimedLoad> {
  const slices: Slice[] = [];
  let answered = 0;
  let responses = 0;
  let draining = false;
  const started = performance.now();
  let mark = { at: started, wall: new Date(), answered: 0, cpu: cpuSeconds(pid) };
  const threadsBefore = threadCpu(pid);
  let threads: ThreadGroupCpu[] = [];
  const read = () => {
    const at = performance.now();
    const cpu = cpuSeconds(pid);
    slices.push({ startedAt: mark.wall, seconds: (at - mark.at) / 1000, answered: answered - mark.answered, cpuSeconds: cpu - mark.cpu, rssMb: rssMb?.() ?? null });
    mark = { at, wall: new Date(), answered, cpu };
  };
  let timer: NodeJS.Timeout | undefined;
  const finish = () => {
    if (draining) return;
    draining = true;
    clearTimeout(timer);
    read();
    threads = threadGroupsSince(pid, threadsBefore);
  };
  const schedule = () => {
    const due = Math.min((slices.length + 1) * sliceSeconds, seconds) * 1000;
    timer = setTimeout(() => {
      if (due >= seconds * 1000) return finish();
      read();
      schedule();
    }, started + due - performance.now());
  };
  return new Promise((ok, fail) => {
    // `amount` ends the run after `max` answers (then `duration` is not used); the timer ends it earlier.
    const instance = autocannon({ url, requests: trafficRequests(hostname), connections: CAPACITY_CONNECTIONS, amount: max }, (error, result) => {
      finish();
      if (error) fail(error);
      else ok({ slices, threads, answered, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts });
    });
    instance.on('response', (client, statusCode) => {
      responses++;
      if (statusCode >= 200 && statusCode < 300) answered++;
      if (responses === max) finish();
      // The connection's next request would be its last: it stops before sending it.
      if (draining) (client as unknown as ClientLimit).responseMax = (client as unknown as ClientLimit).reqsMade;
    });
    schedule();
  });
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const utcTime = (d: Date) => d.toISOString().slice(11, 19);

/** Waits past 00:00 UTC when a run of `ms` from now would cross it; returns the seconds waited. */
async function withinOneUtcDay(ms: number): Promise<number> {
  const now = Date.now();
  const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
  if (now + ms < midnight || ms >= 86_400_000) return 0;
  const wait = midnight - now + 5_000;
  console.error(`bench: the long collector run would cross 00:00 UTC; waiting ${fmt(wait / 1000)} s`);
  await new Promise((r) => setTimeout(r, wait));
  return wait / 1000;
}

/** The long run's length, reading interval and cap (see the file's header). */
export function longRunSettings() {
  return { seconds: envNumber('BENCH_LONG_SECONDS', 300), minute: envNumber('BENCH_LONG_MINUTE', 60), max: envNumber('BENCH_LONG_MAX', 2_000_000), connections: CAPACITY_CONNECTIONS };
}

/** Rate and CPU per answered request over the slices of one or more timed loads. */
function totals(slices: readonly Slice[]) {
  const answered = slices.reduce((n, s) => n + s.answered, 0);
  const seconds = slices.reduce((n, s) => n + s.seconds, 0);
  const cpu = slices.reduce((n, s) => n + s.cpuSeconds, 0);
  return { answered, perSecond: answered / seconds, cpuMicros: (cpu / answered) * 1e6 };
}

/** The collector busy for minutes (see the file's header): throughput and CPU per beacon over time, then the stored rows. */
export async function longCollectorBench(verifyTemplate: string): Promise<BenchRow[]> {
  const { seconds, minute, max } = longRunSettings();
  const hostname = 'bench-long.example';
  // The two baselines, the long run, and a minute for starting the server and draining its queue.
  const waited = await withinOneUtcDay((seconds + 3 * minute + 60) * 1000);
  const bareRun = () => withBareServer((url, pid) => timedLoad(url, pid, hostname, minute, minute, Number.MAX_SAFE_INTEGER));
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-long-'));
  let server: Server | null = await startServer(dataDir, verifyTemplate);
  try {
    await (await ownerSession(server)).register(hostname);
    const before = await bareRun();
    const long = await timedLoad(server.url, server.pid, hostname, seconds, minute, max, server.rssMb);
    await server.stop();
    server = null;
    const after = await bareRun();
    const stored = await storedBeacons(join(dataDir, 'events.duckdb'), hostname);

    const bare = totals([...before.slices, ...after.slices]);
    const [bareBefore, bareAfter] = [totals(before.slices), totals(after.slices)];
    const run = totals(long.slices);
    const minutes = long.slices.map((s) => ({ ...s, ...totals([s]) }));
    // A last slice cut short by BENCH_LONG_MAX is shown but not judged.
    const full = minutes.filter((m) => m.seconds >= minute * 0.9);
    const first = full[0] ?? minutes[0];
    const last = full[full.length - 1] ?? minutes[minutes.length - 1];
    const kept = first && last ? last.perSecond / first.perSecond : 0;
    const cpuRatio = run.cpuMicros / bare.cpuMicros;
    const once = stored.rows === long.answered && stored.ids === long.answered;
    const sameDay = stored.rows > 0 && utcDay(stored.firstTs) === utcDay(stored.lastTs);
    const perBeacon = (micros: number) => `${fmt(micros)} µs CPU/beacon (${(micros / bare.cpuMicros).toFixed(1)}× bare)`;
    return [
      {
        name: `long run baseline: bare node:http \`ok\`, the same beacons over ${CAPACITY_CONNECTIONS} connections, ${fmt(minute)} s before and ${fmt(minute)} s after the long run`,
        value: `before ${fmt(bareBefore.perSecond)} req/s at ${fmt(bareBefore.cpuMicros)} µs CPU/request, after ${fmt(bareAfter.perSecond)} req/s at ${fmt(bareAfter.cpuMicros)} µs; mean ${fmt(bare.perSecond)} req/s, ${fmt(bare.cpuMicros)} µs (the long run's shares and CPU ratios are of the mean)`,
      },
      ...minutes.map((m, i) => ({
        name: `long run minute ${i + 1} (${utcTime(m.startedAt)} UTC, ${m.seconds.toFixed(0)} s)`,
        value: `${fmt(m.perSecond)} beacons/s, ${percent(m.perSecond / bare.perSecond)} of baseline; ${perBeacon(m.cpuMicros)}; server RSS ${fmt(m.rssMb ?? 0)} MiB`,
      })),
      {
        name: `long run: collector POST /events (durable receipt), ${CAPACITY_CONNECTIONS} connections, ${fmt(seconds)} s or ${fmt(max)} beacons, each a new pageview of one of ${fmt(TRAFFIC_VISITORS)} visitors`,
        value: `${fmt(long.answered)} beacons answered 2xx in ${fmt(long.slices.reduce((n, s) => n + s.seconds, 0))} s, ${fmt(run.perSecond)}/s, ${percent(run.perSecond / bare.perSecond)} of baseline (${fmt(long.non2xx)} non-2xx, ${fmt(long.errors)} errors, ${fmt(long.timeouts)} timeouts)`,
      },
      {
        name: 'long run: where the CPU per beacon went, by thread (live threads only; the bare server from its run before the long one)',
        value: `collector: ${perRequestByThread(long.threads, long.answered)}. Bare: ${perRequestByThread(before.threads, totals(before.slices).answered)}`,
      },
      {
        name: 'long run: last full minute\'s throughput against the first\'s',
        value: `${percent(kept)} (${fmt(last?.perSecond ?? 0)} against ${fmt(first?.perSecond ?? 0)} beacons/s)`,
        budget: '≥ 90 %',
        ok: kept >= 0.9,
      },
      {
        name: 'long run: server CPU per beacon (every thread of its process, whole run) against the bare server\'s per request',
        value: `${fmt(run.cpuMicros)} against ${fmt(bare.cpuMicros)} µs: ${cpuRatio.toFixed(1)}×`,
        budget: '≤ 3×',
        ok: cpuRatio <= 3,
      },
      {
        name: 'long run: rows stored for the site after the server stopped (count(*), count(DISTINCT id))',
        value: `${fmt(stored.rows)} rows, ${fmt(stored.ids)} distinct ids; ${fmt(long.answered)} beacons answered 2xx`,
        budget: '= answered 200',
        ok: once,
      },
      {
        name: 'long run: UTC day of the stored rows',
        value: stored.rows
          ? `${utcDay(stored.firstTs)} ${utcTime(new Date(stored.firstTs))}–${sameDay ? '' : `${utcDay(stored.lastTs)} `}${utcTime(new Date(stored.lastTs))}${waited ? ` (waited ${fmt(waited)} s for 00:00 UTC first)` : ''}${sameDay ? '' : ': crosses 00:00 UTC'}`
          : 'no rows',
        budget: 'one day',
        ok: sameDay,
      },
    ];
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The rows a stopped server left in its DuckDB file for `hostname`. */
async function storedBeacons(path: string, hostname: string): Promise<{ rows: number; ids: number; firstTs: number; lastTs: number }> {
  const store = await DuckDbEventStore.open(path, { log });
  try {
    const [r] = await store.query<{ n: bigint; ids: bigint; first: bigint | null; last: bigint | null }>(
      'SELECT count(*) AS n, count(DISTINCT id) AS ids, min(ts) AS first, max(ts) AS last FROM events WHERE site = ?',
      [hostname],
    );
    return { rows: Number(r?.n ?? 0), ids: Number(r?.ids ?? 0), firstTs: Number(r?.first ?? 0), lastTs: Number(r?.last ?? 0) };
  } finally {
    await store.close();
  }
}
