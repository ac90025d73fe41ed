/**
 * The executor over a ClickHouse server, against a local HTTP stand-in that
 * records what arrives: credentials, settings and bound parameters as a
 * ClickHouse server's HTTP interface takes them, values never in the
 * statement's text, and no default database (statements name theirs, which
 * the store creates at start).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';

interface Received {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let url = '';
const received: Received[] = [];
/** The stand-in's JSONEachRow answer to a SELECT. */
const ROWS = '{"n":3,"name":"x"}\n{"n":4,"name":"y"}\n';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: new URL(req.url ?? '/', 'http://stand-in'), headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/x-ndjson', 'x-clickhouse-summary': '{"read_rows":"0"}' });
      res.end(body.includes('SELECT') || (req.url ?? '').includes('SELECT') ? ROWS : '');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const executor = () => clickHouseHttpExecutor({ url, user: 'tinytrack', password: 's3cret-pass', database: 'analytics' });

describe('the ClickHouse HTTP executor', () => {
  it('sends the credentials, session settings and bound parameters of a query, no default database, and reads JSONEachRow rows', async () => {
    received.length = 0;
    const ch = executor();
    const rows = await ch.query('SELECT count() AS n, name FROM t WHERE site = {site:String} GROUP BY name', { site: "o'brien.example" });
    await ch.close();
    expect(rows).toEqual([
      { n: 3, name: 'x' },
      { n: 4, name: 'y' },
    ]);
    const [request] = received;
    const auth = request!.headers.authorization ?? '';
    const basic = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : `${String(request!.headers['x-clickhouse-user'])}:${String(request!.headers['x-clickhouse-key'])}`;
    expect(basic).toBe('tinytrack:s3cret-pass');
    expect(request!.url.searchParams.has('database')).toBe(false);
    expect(request!.url.searchParams.get('join_use_nulls')).toBe('1');
    // Parameter values travel escaped as ClickHouse reads them (a quote behind a backslash).
    expect(request!.url.searchParams.get('param_site')).toBe("o\\'brien.example");
    expect(request!.body).toContain('{site:String}');
    expect(request!.body).not.toContain('brien');
    expect(`${request!.url.search}${request!.body}`).not.toContain('s3cret-pass');
  });

  it('sends an insert into the named table as its columns once and JSONCompactEachRow lines of values', async () => {
    received.length = 0;
    const ch = executor();
    await ch.insert('analytics.events', [{ site: 'a.example', ts: 1, unique: true }, { site: 'b.example', ts: 2, unique: null }]);
    await ch.close();
    const [request] = received;
    expect(request!.url.searchParams.get('query')).toBe('INSERT INTO analytics.events (site, ts, unique) FORMAT JSONCompactEachRow');
    expect(request!.body.trim().split('\n').map((line) => JSON.parse(line))).toEqual([['a.example', 1, true], ['b.example', 2, null]]);
  });
});
