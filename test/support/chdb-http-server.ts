/**
 * A ClickHouse HTTP interface over an in-process chDB session: enough of it
 * for `@clickhouse/client` (queries and commands in the body or `query`,
 * `param_*` bound parameters, settings, JSONEachRow inserts,
 * Basic auth), so `npm start` with CLICKHOUSE_URL and the conformance check
 * run against ClickHouse's engine where no server can be installed.
 * Run it alone: `npx tsx test/support/chdb-http-server.ts` prints its URL.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Session } from 'chdb';

/** Settings the client sends that are no settings. */
/** An insert as @clickhouse/client words it: table, optional column list, format. */
const INSERT = /^INSERT INTO (\S+?)(?: \(([^)]*)\))? FORMAT (\w+)$/s;
const INSERT_FORMATS = new Set(['JSONEachRow', 'JSONCompactEachRow']);
const NOT_SETTINGS = new Set(['query', 'database', 'query_id', 'default_format', 'session_id', 'session_timeout', 'user', 'password']);

/** A raw parameter value (ClickHouse's escaped text) as a string literal that unquotes back to it. */
const literal = (raw: string) => `'${raw.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/**
 * The statement with each `{name:Type}` replaced as a server substitutes it:
 * the value arrives in ClickHouse's escaped text form, which is also a valid
 * SQL literal of its type (a string's quote and backslash come escaped), cast
 * to the placeholder's type. One engine call per statement.
 */
function bound(statement: string, params: Record<string, string>): string {
  return statement.replace(/\{(\w+):([^{}]+)\}/g, (placeholder, name: string, type: string) => {
    const raw = params[name];
    if (raw === undefined) return placeholder;
    const text = /^(Nullable\()?String\)?$/.test(type) ? `'${raw}'` : raw;
    return `CAST(${text}, ${literal(type)})`;
  });
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((ok, fail) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => ok(Buffer.concat(parts)));
    req.on('error', fail);
  });
}

export interface ChdbHttpServer {
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 at a free port; only `user:password` may call it. */
export async function startChdbHttpServer({ user, password }: { user: string; password: string }): Promise<ChdbHttpServer> {
  const session = new Session();
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  let tail: Promise<unknown> = Promise.resolve();
  const applied = new Map<string, string>();
  // One statement at a time, as the session's settings are shared.
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
  // A server takes request lines up to http_max_uri_size (1 MiB); Node's default header limit is 16 KiB.
  const server: Server = createServer({ maxHeaderSize: 1024 * 1024 }, (req, res) => {
    void (async () => {
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'x-clickhouse-exception-code': '516' }).end('Code: 516. DB::Exception: Authentication failed');
        return;
      }
      const url = new URL(req.url ?? '/', 'http://chdb');
      if (url.pathname === '/ping') return void res.writeHead(200).end('Ok.\n');
      const payload = await body(req);
      const inUrl = url.searchParams.get('query');
      // Settings are session-wide: only changed ones are set.
      const params = Object.fromEntries([...url.searchParams].filter(([name]) => name.startsWith('param_')).map(([name, value]) => [name.slice(6), value]));
      const settings = [...url.searchParams].filter(([name, value]) => !NOT_SETTINGS.has(name) && !name.startsWith('param_') && applied.get(name) !== value);
      try {
        const out = await serially(async () => {
          for (const [name, value] of settings) {
            await session.queryAsync(`SET ${name} = ${literal(value)}`);
            applied.set(name, value);
          }
          const insert = inUrl ? INSERT.exec(inUrl) : null;
          if (insert) {
            const [, table = '', columns, format = ''] = insert;
            if (!INSERT_FORMATS.has(format)) throw new Error(`unsupported insert format ${format}`);
            await session.insert({ table, values: payload, format: format as 'JSONEachRow', ...(columns ? { columns: columns.split(',').map((c) => c.trim()) } : {}) });
            return '';
          }
          return (await session.queryAsync(bound(inUrl ?? payload.toString('utf8'), params))).text();
        });
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-clickhouse-summary': '{}' }).end(out);
      } catch (e) {
        res.writeHead(500, { 'x-clickhouse-exception-code': '1' }).end(`Code: 1. DB::Exception: ${(e as Error).message}`);
      }
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((ok) =>
        server.close(() => {
          session.close();
          ok();
        }),
      ),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const server = await startChdbHttpServer({ user: process.env.CLICKHOUSE_USER ?? 'default', password: process.env.CLICKHOUSE_PASSWORD ?? '' });
  console.log(server.url);
}
