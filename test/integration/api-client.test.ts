/**
 * The client for API owners (clients/node/): its batching and retry policy
 * against a capture server, then each middleware (node:http, Express,
 * Fastify, Hono) in front of a real app, sending to the real local service;
 * the requests are read back through the API reports.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTinytrackClient } from '../../clients/node/index.js';
import { wrapListener } from '../../clients/node/http.js';
import { tinytrackExpress } from '../../clients/node/express.js';
import { tinytrackFastify } from '../../clients/node/fastify.js';
import { tinytrackHono } from '../../clients/node/hono.js';
import { startTestService, type TestService } from '../support/local-node.ts';

const listen = (server: Server) => new Promise<string>((ok) => server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const bodyOf = (req: IncomingMessage) => new Promise<string>((ok) => {
  let text = '';
  req.on('data', (c) => (text += c));
  req.on('end', () => ok(text));
});

describe('the client against a capture server', () => {
  let server: Server;
  let url: string;
  const seen: { status: number; items: number }[] = [];
  let answers: { status: number; headers?: Record<string, string> }[] = [];
  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const body = JSON.parse(await bodyOf(req)) as { requests: unknown[] };
      const answer = answers.shift() ?? { status: 202 };
      seen.push({ status: answer.status, items: body.requests.length });
      res.writeHead(answer.status, answer.headers ?? {}).end('{}');
    });
    url = await listen(server);
  });
  afterAll(() => server.close());
  const rec = { method: 'get', route: '/x/{id}', status: 200, duration_ms: 3 };

  it('sends at 100 records, the rest on flush; retries 503 after Retry-After, drops a 400 with an error', async () => {
    seen.length = 0;
    const errors: Error[] = [];
    const client = createTinytrackClient({ endpoint: url, apiKey: 'tt_x', flushIntervalMs: 60_000, retryBaseMs: 10, onError: (e) => errors.push(e) });
    answers = [{ status: 503, headers: { 'retry-after': '0' } }, { status: 202 }];
    for (let i = 0; i < 130; i++) client.record(rec);
    await client.flush();
    expect(seen).toEqual([{ status: 503, items: 100 }, { status: 202, items: 100 }, { status: 202, items: 30 }]);
    answers = [{ status: 400 }];
    client.record(rec);
    await client.close();
    expect(seen.at(-1)).toEqual({ status: 400, items: 1 });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^tinytrack refused 1 records: 400/)]);
    client.record(rec);
    expect(client.pending).toBe(0);
  });

  it('sends on its timer, and keeps at most maxQueue records while it cannot send', async () => {
    seen.length = 0;
    const client = createTinytrackClient({ endpoint: url, apiKey: 'tt_x', flushIntervalMs: 50, maxBatch: 1000, maxQueue: 5 });
    for (let i = 0; i < 8; i++) client.record(rec);
    expect([client.pending, client.dropped]).toEqual([5, 3]);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual([{ status: 202, items: 5 }]);
    await client.close();
  });
});

describe('middleware into the real service', () => {
  let svc: TestService;
  let token: string;
  let site: string;
  let key: string;
  beforeAll(async () => {
    svc = await startTestService();
    token = await svc.token('client-owner');
    site = await svc.site(token, { prefix: 'api-client', kind: 'api', verify: false });
    key = (await svc.req('POST', `/api/sites/${site}/keys`, { token, body: { label: 'client' } })).json.key;
  });
  afterAll(() => svc.stop());

  const routes = async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await svc.req('GET', `/api/sites/${site}/api/breakdown?dim=routes&from=${now - 3600}&to=${now + 60}`, { token });
    return Object.fromEntries((r.json.rows as { name: string; requests: number }[]).map((x) => [x.name, x.requests]));
  };

  it('node:http, Express, Fastify and Hono record route templates, never raw paths', async () => {
    const client = createTinytrackClient({ endpoint: svc.url, apiKey: key, flushIntervalMs: 60_000 });

    const plain = createServer(
      wrapListener(client, (_req, res) => res.end('plain'), { route: (req) => (/^\/plain\/\d+$/.test(req.url ?? '') ? '/plain/{id}' : '(unmatched)') }),
    );
    const plainUrl = await listen(plain);

    const app = express();
    app.use(tinytrackExpress(client, { consumer: () => 'express-client' }));
    app.get('/express/:id', (_req, res) => void res.status(201).send('ok'));
    const expressServer = app.listen(0, '127.0.0.1');
    await new Promise((ok) => expressServer.once('listening', ok));
    const expressUrl = `http://127.0.0.1:${(expressServer.address() as AddressInfo).port}`;

    const fastify = Fastify();
    await fastify.register(tinytrackFastify, { client });
    fastify.get('/fastify/:id', async (_req, reply) => reply.code(503).send('down'));
    const fastifyUrl = await fastify.listen({ port: 0, host: '127.0.0.1' });

    const hono = new Hono();
    hono.use('*', tinytrackHono(client));
    hono.get('/hono/:id', (c) => c.text('hono'));

    try {
      for (const id of [1, 2, 3]) {
        await fetch(`${plainUrl}/plain/${id}`).then((r) => r.text());
        await fetch(`${expressUrl}/express/${id}`).then((r) => r.text());
        await fetch(`${fastifyUrl}/fastify/${id}`).then((r) => r.text());
        await (await hono.fetch(new Request(`http://hono.local/hono/${id}`))).text();
      }
      await client.close();
      const stored = await svc.until(routes, (r) => Object.values(r).reduce((a, b) => a + b, 0) >= 12);
      expect(stored).toEqual({ '/plain/{id}': 3, '/express/:id': 3, '/fastify/:id': 3, '/hono/:id': 3 });
      const now = Math.floor(Date.now() / 1000);
      const statuses = (await svc.req('GET', `/api/sites/${site}/api/breakdown?dim=statuses&from=${now - 3600}&to=${now + 60}`, { token })).json.rows;
      expect(Object.fromEntries(statuses.map((x: { name: string; requests: number }) => [x.name, x.requests]))).toEqual({ '200': 6, '201': 3, '503': 3 });
      const consumers = (await svc.req('GET', `/api/sites/${site}/api/breakdown?dim=consumers&from=${now - 3600}&to=${now + 60}`, { token })).json.rows;
      expect(consumers.map((x: { name: string; requests: number }) => [x.name, x.requests])).toEqual([['express-client', 3]]);
    } finally {
      plain.close();
      expressServer.close();
      await fastify.close();
    }
  });
});
