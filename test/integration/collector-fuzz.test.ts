/**
 * Fuzz: random and malformed bodies, query strings and headers on every
 * collector route. Nothing may answer 5xx, crash the server or stop /healthz.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { request } from 'node:http';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let site: string;

beforeAll(async () => {
  svc = await startTestService();
  site = await svc.site(await svc.token('fuzzer'));
});
afterAll(() => svc.stop());

/** Raw node:http so that odd bytes, methods and headers go out exactly as generated. */
function send(method: string, path: string, body: Buffer | null, headers: Record<string, string>): Promise<number> {
  return new Promise((ok, fail) => {
    const url = new URL(svc.url);
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode ?? 0));
    });
    req.on('error', fail);
    if (body) req.write(body);
    req.end();
  });
}

/** Generators for requests aimed at one registered, verified site (and at garbage). */
function arbitraries(site: string) {
  const fieldNames = ['hostname', 'type', 'event', 'path', 'query', 'referrer', 'metadata', 'id', 'original_id', 'ua', 'timezone', 'https', 'unique', 'bot', 'collect-dnt', 'duration', 'scrolled', 'viewport_width', 'screen_height', 'language', 'brands', 'mobile', 'utm_source', 'ref', '__proto__', 'constructor'];
  const anyValue = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue(), fc.constant(site), fc.constant('/x'));
  const payload = fc.dictionary(fc.oneof(fc.constantFrom(...fieldNames), fc.string()), anyValue, { maxKeys: 12 });
  const body = fc.oneof(
    payload.map((p) => Buffer.from(JSON.stringify(p))),
    payload.map((p) => Buffer.from(JSON.stringify({ ...p, hostname: site }))),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v))),
    fc.string().map((s) => Buffer.from(s)),
    fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    fc.constant(Buffer.from('hostname=a.example&path=/')),
  );
  const query = fc.oneof(
    payload.map((p) => new URLSearchParams(Object.entries(p).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString()),
    fc.string().map((s) => encodeURI(s).replace(/#/g, '%23')),
    fc.constantFrom('%', '%zz', 'hostname=%E0%A4%A', `hostname=${site}&metadata=%7B`, `hostname=${site}&type=event&event=%00`, '&&&=', 'a=1&a=2'),
  );
  const headers = fc.record(
    {
      dnt: fc.constantFrom('1', '0', 'yes', ''),
      'x-do-not-track': fc.constantFrom('1', '0'),
      'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '\u00ff'.replace(/\u00ff/, 'x/y')),
      referer: fc.oneof(fc.webUrl(), fc.string().filter((s) => /^[\x20-\x7e]*$/.test(s)), fc.constant(`https://${site}/p?q=1`)),
      'user-agent': fc.oneof(fc.string().filter((s) => /^[\x20-\x7e]*$/.test(s)), fc.constant('curl/8')),
    },
    { requiredKeys: [] },
  );
  return { body, query, headers };
}

describe('collector fuzz', () => {
  it('answers every one of 10,000+ random requests without a 5xx, and stays healthy', async () => {
    const { body, query, headers } = arbitraries(site);
    let sent = 0;
    const statuses = new Map<number, number>();
    const tally = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const postRoute = fc.constantFrom('/events', '/append');
    const getRoute = fc.constantFrom('/simple.gif', '/noscript.gif', '/latest.js');
    const requests = fc.oneof(
      fc.tuple(fc.constant('POST'), postRoute, body, headers).map(([m, p, b, h]) => ({ method: m, path: p, body: b, headers: h })),
      fc.tuple(fc.constantFrom('GET', 'HEAD'), getRoute, query, headers).map(([m, p, q, h]) => ({ method: m, path: `${p}?${q}`, body: null, headers: h })),
      fc.tuple(fc.constantFrom('PUT', 'DELETE', 'PATCH', 'POST', 'GET'), fc.constantFrom('/simple.gif', '/latest.js', '/events', '/append', '/healthz'), body, headers).map(([m, p, b, h]) => ({ method: m, path: p, body: b, headers: h })),
    );
    // One request at a time, so a failure shrinks to the smallest request that still fails and names it.
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        const status = await send(r.method, r.path, r.body, r.headers as Record<string, string>);
        tally(status);
        sent++;
        if (status >= 500) throw new Error(`${r.method} ${r.path} (body ${JSON.stringify(r.body?.toString('latin1').slice(0, 200) ?? null)}) answered ${status}`);
      }),
      { numRuns: 10_500, seed: 20261122 },
    );
    expect(sent).toBeGreaterThanOrEqual(10_000);
    // Both outcomes were exercised: accepted beacons and refused ones.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(100);
    expect(await send('GET', '/healthz', null, {})).toBe(200);
  }, 300_000);
});
