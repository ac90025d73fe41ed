/**
 * Where a beacon's CPU goes (BENCH_ONLY=phases), in two parts.
 *
 * In-process: the collector route's own dispatch (handler.serve, no HTTP)
 * over a local node's services, real traffic (traffic.ts: a new id per
 * beacon, thousands of visitors), BENCH_PHASE_BEACONS (default 200,000) beacons
 * per configuration after a warm-up. The steps: each one's time as the ingest
 * runner measures it (functions/domain/ingest/pipeline.ts, through a metrics
 * port with a timer), beacons sent one at a time so that a step's time is its
 * own, over a queue that drops its batches. Around them, CPU of every thread
 * of this process (process.cpuUsage) per beacon with 100 in flight, the queue
 * drained before the clock stops, each configuration adding to the one
 * before: a queue that drops its batches (the route in all: dispatch, steps,
 * answer), the same queue journaled (+ durable receipt), the node's own queue
 * (+ the writer: flags, stage, insert, commit, compaction). The steps' times
 * are wall time and include the runner's clock reads, so their sum is not
 * taken from the CPU figures.
 *
 * Over HTTP: the bare node:http server of the collector bench, spending a
 * fixed time on the CPU per request (0, 5, 10, 15 µs of busy waiting), at
 * full load over 100 connections: its CPU per request against the bare
 * server's. Work per request costs more than itself as measured from
 * outside (the kernel work of a slower server's sockets lands on it too):
 * this shows which amount of work the "at most 2× the bare server" budget
 * leaves a collector.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startTestService } from '../support/local-node.ts';
import { handler, type CollectorServices } from '#http/handlers/collector.ts';
import type { ApiRequest } from '#http/api.ts';
import { JSON_BEACON } from '#domain/ingest/beacon.ts';
import type { DropReason } from '#domain/ingest/drop.ts';
import type { IngestMetrics, StepTimer } from '#ports/ingest-metrics.ts';
import { createEventQueue } from '#local/adapters.ts';
import { ReceiptJournal } from '#adapters/receipt-journal/receipt-journal.ts';
import { eventRowCodec } from '#adapters/receipt-journal/event-row-codec.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { MemoryQueue } from '#adapters/memory-queue/memory-queue.ts';
import { cpuSeconds } from './service.ts';
import { withBareServer } from './collector-bench.ts';
import { TRAFFIC_VISITORS, trafficBeacon, trafficRequests, visitorAgent } from './traffic.ts';
import { envNumber, fmt, type BenchRow } from './stats.ts';
import { log } from '#platform/log.ts';

export const IN_FLIGHT = 100;

/** A store that takes every batch and keeps nothing: the queue's cost without the writer's. */
const droppingStore: EventStore = { saveEvents: async () => undefined, close: async () => undefined };

/** The ingest runner's timings summed by step; every beacon here is stored, so a drop is noted as a failure of the bench. */
class StepTimes implements IngestMetrics {
  readonly totalMs = new Map<string, number>();
  readonly drops: DropReason[] = [];
  readonly stepTimer: StepTimer = {
    now: () => performance.now(),
    timeStep: (step, ms) => void this.totalMs.set(step, (this.totalMs.get(step) ?? 0) + ms),
  };

  dropped(reason: DropReason): void {
    this.drops.push(reason);
  }
}

let sends = 0;

/** Sends `count` beacons of real traffic (traffic.ts) for `hostname` through the collector route, `inFlight` at a time, then drains `queue`. */
export async function sendBeacons(services: CollectorServices, queue: MemoryQueue<EventRow>, hostname: string, count: number, inFlight: number): Promise<void> {
  const tag = `phases${sends++}`;
  let n = 0;
  const request = (): ApiRequest<CollectorServices> => {
    const i = n++;
    const headers = { 'user-agent': visitorAgent(i % TRAFFIC_VISITORS) };
    return { method: 'POST', path: '/events', params: {}, query: {}, headers, body: Buffer.from(trafficBeacon(hostname, tag, i)), sourceIp: '127.0.0.1', services };
  };
  let sent = 0;
  const sender = async () => {
    while (sent < count) {
      sent++;
      const answer = await handler.serve(request(), 'POST /events');
      if (answer.statusCode !== 200) throw new Error(`phase bench: ${answer.statusCode} ${answer.body}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  await queue.drain();
}

/** CPU µs per beacon (every thread of this process) of `count` beacons through `services`, the queue drained. */
async function cpuPerBeacon(services: CollectorServices, queue: MemoryQueue<EventRow>, hostname: string, count: number): Promise<number> {
  await sendBeacons(services, queue, hostname, Math.min(50_000, count), IN_FLIGHT);
  const before = process.cpuUsage();
  await sendBeacons(services, queue, hostname, count, IN_FLIGHT);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** µs per beacon of each step, in the order the route runs them, as the ingest runner timed them one beacon at a time. */
async function stepMicros(services: CollectorServices, queue: MemoryQueue<EventRow>, hostname: string, count: number): Promise<[string, number][]> {
  await sendBeacons(services, queue, hostname, Math.min(50_000, count), 1);
  const times = new StepTimes();
  await sendBeacons({ ...services, collectorDrops: times }, queue, hostname, count, 1);
  if (times.drops.length > 0) throw new Error(`phase bench: beacons dropped (${[...new Set(times.drops)].join(', ')})`);
  return JSON_BEACON.names.map((step) => [step, ((times.totalMs.get(step) ?? 0) * 1000) / count]);
}

/** The in-process phases (see the file's header). */
async function inProcessPhases(count: number): Promise<BenchRow> {
  const service = await startTestService();
  const dir = mkdtempSync(join(tmpdir(), 'tt-bench-phases-'));
  const queues: MemoryQueue<EventRow>[] = [];
  try {
    const hostname = await service.site(await service.token('bench-phases'));
    const own = service.node.services;
    const ownQueue = service.node.runtime.eventQueue;
    const dropping = createEventQueue(droppingStore, join(dir, 'plain'));
    const { journal } = await ReceiptJournal.open<EventRow>(join(dir, 'journal'), { log, codec: eventRowCodec });
    const journaled = createEventQueue(droppingStore, join(dir, 'journaled'), journal, true);
    queues.push(dropping, journaled);
    const steps = await stepMicros({ ...own, eventQueue: dropping }, dropping, hostname, count);
    const measured = {
      queue: await cpuPerBeacon({ ...own, eventQueue: dropping }, dropping, hostname, count),
      journal: await cpuPerBeacon({ ...own, eventQueue: journaled }, journaled, hostname, count),
      writer: await cpuPerBeacon(own, ownQueue, hostname, count),
    };
    await journal.close();
    const inSteps = steps.reduce((sum, [, us]) => sum + us, 0);
    const step = (us: number) => `${us >= 0 ? '+' : ''}${us.toFixed(1)} µs`;
    return {
      name: `where a beacon's CPU goes, in-process (the collector route's dispatch without HTTP, ${fmt(count)} beacons per configuration: each ingest step as the runner timed it, one beacon at a time; around them, CPU of every thread of the process, ${IN_FLIGHT} in flight, each configuration's queue drained)`,
      value: [
        ...steps.map(([name, us]) => `${name} ${us.toFixed(1)} µs`),
        `the steps as timed ${inSteps.toFixed(1)} µs (wall time, the runner's clock reads included)`,
        `the route in all, as CPU (dispatch, steps, answer, the queue's batches) ${measured.queue.toFixed(1)} µs`,
        `durable receipt (journal line, synchronized write) ${step(measured.journal - measured.queue)}`,
        `writer (flags, stage, insert, commit, compaction) ${step(measured.writer - measured.journal)}`,
        `total ${measured.writer.toFixed(1)} µs per beacon`,
      ].join('; '),
    };
  } finally {
    for (const queue of queues) queue.stop();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU µs per request of the bare server spinning `spinMicros` per request, at full load (100 connections, `seconds`). */
function spunCpuPerRequest(spinMicros: number, seconds: number): Promise<{ perSecond: number; cpuMicros: number }> {
  return withBareServer(async (url, pid) => {
    const options = { url, requests: trafficRequests('x.example'), connections: 100 };
    await autocannon({ ...options, duration: 2 });
    const before = cpuSeconds(pid);
    const result = await autocannon({ ...options, duration: seconds });
    return { perSecond: result.requests.average, cpuMicros: ((cpuSeconds(pid) - before) / result.requests.total) * 1e6 };
  }, spinMicros);
}

/** The spinning servers (see the file's header). */
async function fixedWorkRows(seconds: number): Promise<BenchRow> {
  const spins = [0, 5, 10, 15];
  const measured: { spin: number; perSecond: number; cpuMicros: number }[] = [];
  for (const spin of spins) measured.push({ spin, ...(await spunCpuPerRequest(spin, seconds)) });
  const bare = measured[0] as (typeof measured)[number];
  return {
    name: `a bare node:http server spending a fixed time on the CPU per request (busy waiting), 100 connections, ${fmt(seconds)} s each: CPU per request (/proc/<pid>/stat, every thread) against the bare server's`,
    value: measured
      .map((m) => `${m.spin} µs: ${fmt(m.perSecond)} req/s, ${m.cpuMicros.toFixed(1)} µs (${(m.cpuMicros / bare.cpuMicros).toFixed(1)}×${m.spin > 0 ? `, ${(m.cpuMicros - bare.cpuMicros).toFixed(1)} µs over bare for ${m.spin} µs of work` : ''})`)
      .join('; '),
  };
}

export async function collectorPhasesBench(): Promise<BenchRow[]> {
  const count = envNumber('BENCH_PHASE_BEACONS', 200_000);
  return [await inProcessPhases(count), await fixedWorkRows(envNumber('BENCH_PHASE_SECONDS', 8))];
}
