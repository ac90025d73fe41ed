/**
 * The visitor's address behind a proxy (TRUST_PROXY=1): only the entry the
 * proxy appended to X-Forwarded-For counts; on Lambda only the address API
 * Gateway or the Function URL reports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/local-node.ts';
import { FRESH_TABLE } from '#adapters/duckdb/duckdb-event-store.ts';
import { httpApiEvent } from '../support/lambda-events.ts';

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.7000.0 Safari/537.36';

let svc: TestService;
let owner: string;

beforeAll(async () => {
  svc = await startTestService({ TRUST_PROXY: '1' });
  owner = await svc.token('proxy-owner');
});
afterAll(() => svc.stop());

async function visitors(site: string): Promise<unknown[]> {
  await svc.node.runtime.eventQueue.drain();
  const rows = await svc.node.runtime.duckdb!.query<{ visitor: unknown }>(`SELECT visitor FROM ${FRESH_TABLE} WHERE site = $site ORDER BY ts, rowid`, { site });
  return rows.map((r) => r.visitor);
}

const beacon = (site: string) => JSON.stringify({ hostname: site, path: '/', ua: UA, id: randomUUID() });

describe('TRUST_PROXY=1', () => {
  it('counts one visitor for beacons whose spoofed entries differ but whose proxy-added entry is the same', async () => {
    const site = await svc.site(owner, { prefix: 'proxied' });
    for (const forwarded of ['1.1.1.1, 203.0.113.7', '2.2.2.2, 203.0.113.7', '3.3.3.3, 4.4.4.4, 203.0.113.7', '203.0.113.7', '203.0.113.8']) {
      const r = await svc.req('POST', '/events', { raw: beacon(site), headers: { 'user-agent': UA, 'x-forwarded-for': forwarded } });
      expect(r.status).toBe(200);
    }
    const [first, ...rest] = await visitors(site);
    expect(rest.slice(0, 3)).toEqual([first, first, first]);
    // The last beacon came through the proxy from another address: another visitor.
    expect(rest[3]).not.toEqual(first);
  });
});

describe('on Lambda', () => {
  it('takes the address API Gateway reports and ignores X-Forwarded-For, even with TRUST_PROXY set', async () => {
    const { createCollectorHandler } = await import('#http/handlers/collector.ts');
    const handler = createCollectorHandler(svc.node.services);
    const site = await svc.site(owner, { prefix: 'lambda-ip' });
    const event = (sourceIp: string, headers: Record<string, string>) =>
      httpApiEvent('POST /events', { method: 'POST', url: '/events', sourceIp, headers: { 'user-agent': UA, ...headers }, body: beacon(site) });
    for (const e of [event('203.0.113.9', {}), event('203.0.113.9', { 'x-forwarded-for': '1.1.1.1, 2.2.2.2' }), event('203.0.113.10', { 'x-forwarded-for': '203.0.113.9' })]) {
      expect((await handler(e, {} as never)).statusCode).toBe(200);
    }
    const [first, second, third] = await visitors(site);
    expect(second).toEqual(first);
    expect(third).not.toEqual(first);
  });
});
