/**
 * A beacon the collector cannot take is never answered 200: a full queue
 * answers 503 with Retry-After (plain text, collector CORS), and the drop is
 * counted.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryQueue } from '#adapters/memory-queue/memory-queue.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { log as serviceLog } from '#platform/log.ts';

let svc: TestService;
let site: string;

beforeAll(async () => {
  svc = await startTestService();
  site = await svc.site(await svc.token('receipt-owner'), { prefix: 'receipt' });
});
afterAll(() => svc.stop());

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('a full event queue', () => {
  it('answers 503 with Retry-After on the JSON and image routes, and counts each refusal', async () => {
    const real = svc.node.services.eventQueue;
    // A queue that holds one row and never delivers it: the second beacon cannot be taken.
    const full = new MemoryQueue<EventRow>({ log: serviceLog, consumer: () => new Promise(() => {}), maxDepth: 1, maxWaitMs: 60_000 });
    svc.node.services.eventQueue = full;
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      svc.node.services.collectorDrops.flush();
      const beacon = () => svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, path: '/', ua: UA, id: randomUUID() }), headers: { origin: 'https://x.example' } });
      expect((await beacon()).status).toBe(200);
      const refused = await beacon();
      expect([refused.status, refused.text, refused.headers.get('retry-after'), refused.headers.get('content-type'), refused.headers.get('access-control-allow-origin')]).toEqual([
        503, 'service unavailable, retry later', '1', 'text/plain; charset=utf-8', '*',
      ]);
      const gif = await svc.req('GET', `/simple.gif?${new URLSearchParams({ hostname: site, path: '/img', ua: UA, id: randomUUID() })}`);
      expect([gif.status, gif.headers.get('retry-after')]).toEqual([503, '1']);
      svc.node.services.collectorDrops.flush();
      const counted = log.mock.calls.map(([line]) => JSON.parse(String(line))).find((l) => l.msg === 'collector drops');
      expect(counted?.counts).toMatchObject({ queue_full: 2 });
    } finally {
      log.mockRestore();
      full.stop();
      svc.node.services.eventQueue = real;
    }
  });
});
