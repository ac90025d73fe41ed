/** The ingest runner (functions/domain/ingest/pipeline.ts) and the step lists it runs. */
import { describe, expect, it } from 'vitest';
import { runPipeline, Steps, type Step } from '#domain/ingest/pipeline.ts';
import { drop, type DropReason } from '#domain/ingest/drop.ts';
import { IMAGE_BEACON, IMAGE_BEACON_DECODE, JSON_BEACON, JSON_BEACON_DECODE } from '#domain/ingest/beacon.ts';
import { COLLECT_STEPS } from '#domain/ingest/collect.ts';
import type { IngestMetrics } from '#ports/ingest-metrics.ts';

/** Metrics that keep every drop and, with a clock, every step's time. */
function recording(clock?: () => number) {
  const drops: [DropReason, string | null][] = [];
  const times: [string, number][] = [];
  const metrics: IngestMetrics = {
    dropped: (reason, hostname) => void drops.push([reason, hostname]),
    stepTimer: clock && { now: clock, timeStep: (step, ms) => void times.push([step, ms]) },
  };
  return { metrics, drops, times };
}

interface Trail {
  hostname: string;
  seen: string[];
}

/** A step that notes its name in the value's trail. */
const noting = (name: string): Step<Trail, Trail> => ({ name, run: (v) => ({ ...v, seen: [...v.seen, name] }), sentHostname: (v) => v.hostname });

const start: Trail = { hostname: 'Sent.example', seen: [] };

describe('runPipeline', () => {
  it('runs the steps in order, each on the value the one before returned, and answers the last value', async () => {
    const steps = Steps.from<Trail>().then(noting('a')).then(noting('b')).then(noting('c'));
    const { metrics, drops } = recording();
    expect(await runPipeline(start, steps, metrics, undefined)).toEqual({ hostname: 'Sent.example', seen: ['a', 'b', 'c'] });
    expect(drops).toEqual([]);
  });

  it('converts the value from one type to the next', async () => {
    const length: Step<string, number> = { name: 'length', run: (s) => s.length };
    const double: Step<number, number> = { name: 'double', run: (n) => n * 2 };
    expect(await runPipeline('four', Steps.from<string>().then(length).then(double), recording().metrics, undefined)).toBe(8);
  });

  it('stops at the first drop and runs no later step', async () => {
    const ran: string[] = [];
    const step = (name: string, reason?: DropReason): Step<Trail, Trail> => ({
      name,
      run: (v) => {
        ran.push(name);
        return reason ? drop(reason) : v;
      },
    });
    const steps = Steps.from<Trail>().then(step('a')).then(step('b', 'replay')).then(step('c', 'unverified'));
    expect(await runPipeline(start, steps, recording().metrics, undefined)).toEqual(drop('replay'));
    expect(ran).toEqual(['a', 'b']);
  });

  it('counts every drop once by its reason, with the hostname the dropping step names (none when it names none)', async () => {
    const { metrics, drops } = recording();
    const dropping = (reason: DropReason, named: boolean): Step<Trail, Trail> => ({ name: reason, run: () => drop(reason), ...(named ? { sentHostname: (v: Trail) => v.hostname } : {}) });
    for (const [reason, named] of [
      ['dnt', false],
      ['unknown_site', true],
      ['unknown_site', true],
      ['queue_full', true],
    ] as const) {
      await runPipeline(start, Steps.from<Trail>().then(noting('a')).then(dropping(reason, named)), metrics, undefined);
    }
    await runPipeline(start, Steps.from<Trail>().then(noting('a')), metrics, undefined);
    expect(drops).toEqual([
      ['dnt', null],
      ['unknown_site', 'Sent.example'],
      ['unknown_site', 'Sent.example'],
      ['queue_full', 'Sent.example'],
    ]);
  });

  it('times every step on the port’s clock, the dropping one too, and an async step until its value is ready', async () => {
    let now = 100;
    const { metrics, times } = recording(() => now);
    const busy = (name: string, ms: number): Step<Trail, Trail> => ({
      name,
      run: (v) => {
        now += ms;
        return v;
      },
    });
    const waiting: Step<Trail, Trail> = {
      name: 'waiting',
      run: async (v) => {
        await new Promise((ok) => setTimeout(ok, 1));
        now += 7;
        return v;
      },
    };
    const dropping: Step<Trail, Trail> = { name: 'dropping', run: () => ((now += 2), drop('replay')) };
    const steps = Steps.from<Trail>().then(busy('first', 3)).then(waiting).then(busy('third', 0.5)).then(dropping).then(busy('never', 1));
    await runPipeline(start, steps, metrics, undefined);
    expect(times).toEqual([
      ['first', 3],
      ['waiting', 7],
      ['third', 0.5],
      ['dropping', 2],
    ]);
  });

  it('awaits async steps and passes the context to every step', async () => {
    const ctx = { suffix: '!' };
    const later: Step<string, string, typeof ctx> = { name: 'later', run: async (s, c) => `${s}${c.suffix}` };
    const now: Step<string, string, typeof ctx> = { name: 'now', run: (s, c) => `${s}${c.suffix}` };
    const steps = Steps.from<string, typeof ctx>().then(later).then(now).then(later);
    expect(await runPipeline('hi', steps, recording().metrics, ctx)).toBe('hi!!!');
  });

  it('counts an async drop like a sync one', async () => {
    const { metrics, drops } = recording();
    const late: Step<Trail, Trail> = { name: 'late', run: async () => drop('lookup_failed'), sentHostname: (v) => v.hostname };
    expect(await runPipeline(start, Steps.from<Trail>().then(late), metrics, undefined)).toEqual(drop('lookup_failed'));
    expect(drops).toEqual([['lookup_failed', 'Sent.example']]);
  });

  it('lets a step’s error reach the caller, counted as no drop', async () => {
    const { metrics, drops } = recording();
    const failing: Step<Trail, Trail> = {
      name: 'failing',
      run: () => {
        throw new Error('store down');
      },
    };
    await expect(runPipeline(start, Steps.from<Trail>().then(failing), metrics, undefined)).rejects.toThrow('store down');
    expect(drops).toEqual([]);
  });
});

describe('Steps', () => {
  it('lists its steps by name in order; concat puts one list after another and leaves both as they were', () => {
    const first = Steps.from<Trail>().then(noting('a')).then(noting('b'));
    const second = Steps.from<Trail>().then(noting('c'));
    expect(first.concat(second).names).toEqual(['a', 'b', 'c']);
    expect([first.names, second.names]).toEqual([['a', 'b'], ['c']]);
  });
});

describe('the beacon routes’ steps', () => {
  it('decode each wire in its own steps (JSON: parse before DNT; image: DNT first), then run the shared ones', () => {
    const shared = ['hostname', 'site', 'verify', 'row', 'resend', 'store', 'seen'];
    expect(COLLECT_STEPS.names).toEqual(shared);
    expect(JSON_BEACON_DECODE.names).toEqual(['parse', 'dnt', 'validate']);
    expect(IMAGE_BEACON_DECODE.names).toEqual(['dnt', 'validate']);
    expect(JSON_BEACON.names).toEqual(['parse', 'dnt', 'validate', ...shared]);
    expect(IMAGE_BEACON.names).toEqual(['dnt', 'validate', ...shared]);
  });
});
