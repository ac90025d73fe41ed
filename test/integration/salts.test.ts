/** Daily salts against real dynalite: one per UTC day for every instance, deleted when the day has ended. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import { rotateSalts } from '#workers/rotate-salts.ts';

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
});
