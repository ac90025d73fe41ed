/** `npm start`'s service in a process of its own, for the benchmarks that load it over HTTP. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { fmt } from './stats.ts';

export interface Server {
  url: string;
  dataDir: string;
  /** The server's own process, for reads of /proc/<pid>. */
  pid: number;
  rssMb(): number;
  stop(): Promise<void>;
}

/** The URL a child prints in its `listening on http://…` line. */
export function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok(m[1] as string);
    });
    child.once('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
}

/** Starts the service over `dataDir`; `env` adds to (or overrides) the bench's settings. */
export async function startServer(dataDir: string, verifyTemplate: string, env: Record<string, string> = {}): Promise<Server> {
  // As `npm start` runs it (package.json): young-generation size and malloc arenas included.
  const child: ChildProcess = spawn(process.execPath, [...(process.env.BENCH_SERVER_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_SERVER_PROF] : []), '--max-semi-space-size=64', '--import', 'tsx', 'bin/local.ts'], {
    env: { MALLOC_ARENA_MAX: '2', ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_ISSUER: '', VERIFY_URL_TEMPLATE: verifyTemplate, VERIFY_ALLOW_PRIVATE_ADDRESSES: '1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(child);
  return {
    url,
    dataDir,
    pid: child.pid as number,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    stop: () =>
      new Promise((ok) => {
        child.once('exit', () => ok());
        child.kill('SIGTERM');
      }),
  };
}

let clockTicks: number | null = null;

/**
 * CPU seconds process `pid` has used so far, user and system, summed over all
 * its threads (DuckDB's and libuv's too): utime and stime of /proc/<pid>/stat,
 * in clock ticks of `getconf CLK_TCK`.
 */
export function cpuSeconds(pid: number): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count from the `)` that closes it; field 3 is then index 0.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** CPU seconds of one thread of a process: user and kernel time, and the thread's name. */
export interface ThreadCpu {
  name: string;
  user: number;
  system: number;
}

/**
 * The CPU time of every live thread of process `pid` by thread id
 * (/proc/<pid>/task/<tid>/stat). The main thread's id is the process id.
 * Threads that ended are not listed (their time stays in cpuSeconds).
 */
export function threadCpu(pid: number): Map<string, ThreadCpu> {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const threads = new Map<string, ThreadCpu>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid, { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), user: Number(fields[11]) / clockTicks, system: Number(fields[12]) / clockTicks });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

export const BENCH_OWNER = 'bench-owner';

/** The bench owner's ID token, and registration (verified) of a hostname under it. */
export async function ownerSession(server: Server) {
  const token = await mintIdToken(loadIssuerKey(server.dataDir), BENCH_OWNER);
  const auth = { authorization: `Bearer ${token}` };
  const register = async (hostname: string) => {
    await fetch(`${server.url}/api/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ hostname }) });
    await fetch(`${server.url}/api/sites/${hostname}/verify`, { method: 'POST', headers: auth });
  };
  return { token, auth, register };
}

/** An autocannon run (20 connections, 5 s unless told); any non-2xx answer or error fails it. */
export async function load(url: string, options: Partial<autocannon.Options> = {}) {
  const result = await autocannon({ url, connections: 20, duration: 5, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

export const rps = (r: autocannon.Result) => `${fmt(r.requests.average)} req/s (p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms)`;
