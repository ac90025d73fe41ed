/** Daily salts against real dynalite: one per UTC day for every instance, deleted when the day has ended. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import type { ScheduledEvent } from 'aws-lambda';
import { createRotateSaltsHandler, rotateSalts } from '#workers/rotate-salts.ts';
import { scheduledEvent } from '../support/lambda-events.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

describe('daily salts', () => {
  it('gives every instance the first stored salt of a day', async () => {
    const registry = svc.node.services.registry;
    const first = await registry.getOrCreateDailySalt('2031-01-01', 'salt-a', 1);
    const second = await registry.getOrCreateDailySalt('2031-01-01', 'salt-b', 1);
    expect([first, second]).toEqual(['salt-a', 'salt-a']);
  });

  it('deletes the salts of every day before today', async () => {
    const registry = svc.node.services.registry;
    await registry.getOrCreateDailySalt('2030-12-30', 'old-1', 1);
    await registry.getOrCreateDailySalt('2030-12-31', 'old-2', 1);
    await registry.getOrCreateDailySalt('2031-01-02', 'future', 1);
    expect(await rotateSalts(registry, new Date('2031-01-01T00:05:00Z'))).toBe(2);
    // Gone: asking again stores a new salt. Today's and later days' stay.
    expect(await registry.getOrCreateDailySalt('2030-12-31', 'new', 1)).toBe('new');
    expect(await registry.getOrCreateDailySalt('2031-01-01', 'x', 1)).toBe('salt-a');
    expect(await registry.getOrCreateDailySalt('2031-01-02', 'x', 1)).toBe('future');
  });
  it("deletes the ended days' salts when the EventBridge schedule invokes the function", async () => {
    const registry = svc.node.services.registry;
    await registry.getOrCreateDailySalt('2020-02-02', 'long-ended', 1);
    // The entry point as the stack wires it: the rule's scheduled event in, the count out.
    const onSchedule: (event: ScheduledEvent) => Promise<{ deleted: number }> = createRotateSaltsHandler(registry, svc.node.services.clock);
    expect(await onSchedule(scheduledEvent(svc.node.services.clock.now()))).toEqual({ deleted: 1 });
    expect(await registry.getOrCreateDailySalt('2020-02-02', 'new', 1)).toBe('new');
  });
});

describe('salts across midnight (service clock)', () => {
  it("deletes the ended day's salt at the UTC day boundary without waiting for a beacon", { timeout: 60_000 }, async () => {
    // A site, and the salt of 2032-03-04, stored before the clocked service starts.
    const setup = await startTestService();
    const site = await setup.site(await setup.token('midnight-owner'), { prefix: 'midnight' });
    const ended = await setup.node.services.registry.getOrCreateDailySalt('2032-03-04', 'salt-of-the-4th', 1);
    await setup.stop({ keepData: true });

    const rotations: number[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      const parsed = JSON.parse(String(line));
      if (parsed.msg === 'salts rotated') rotations.push(parsed.deleted);
    });
    // A held clock one second before midnight, and the rotation's timer fired by hand: nothing here waits on wall time.
    let now = new Date('2032-03-04T23:59:59.000Z');
    const armed: { run: () => void; ms: number }[] = [];
    const timers = { set: (run: () => void, ms: number) => armed.push({ run, ms }), clear: () => undefined };
    const clocked = await startTestService({ DATA_DIR: setup.dataDir }, { clock: { now: () => now }, timers });
    try {
      // At start (still the 4th) nothing is deleted, and the next rotation is armed for midnight.
      await vi.waitFor(() => expect(rotations).toEqual([0]), { timeout: 5_000, interval: 20 });
      expect(armed.map((t) => t.ms)).toEqual([1_000]);
      now = new Date('2032-03-05T00:00:00.000Z');
      armed[0]!.run();
      await vi.waitFor(() => expect(rotations).toEqual([0, 1]), { timeout: 5_000, interval: 20 });
      // The next one is armed an hour on (the backstop), not at the next midnight, 24 hours away.
      expect(armed.map((t) => t.ms)).toEqual([1_000, 3_600_000]);
      const registry = clocked.node.services.registry;
      expect(await registry.getOrCreateDailySalt('2032-03-04', 'after-rotation', 1)).toBe('after-rotation');
      expect(ended).toBe('salt-of-the-4th');
      // A beacon after midnight is hashed with the 5th's salt.
      const r = await clocked.req('POST', '/events', { raw: JSON.stringify({ hostname: site, path: '/', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36', id: randomUUID() }) });
      expect(r.status).toBe(200);
      await clocked.node.runtime.eventQueue.drain();
      const [row] = await clocked.node.runtime.duckdb!.query<{ day: string; visitor: string | null }>(
        "SELECT strftime(make_timestamp(ts * 1000), '%Y-%m-%d') AS day, visitor FROM events WHERE site = $site",
        { site },
      );
      expect(row?.day).toBe('2032-03-05');
      expect(row?.visitor).toMatch(/^[0-9a-f]{32}$/);
      expect(await registry.getOrCreateDailySalt('2032-03-05', 'probe', 1)).not.toBe('probe');
    } finally {
      log.mockRestore();
      await clocked.stop();
    }
  });
});
