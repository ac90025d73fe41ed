/** `npm start`'s service in a process of its own, for the benchmarks that load it over HTTP. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Server {
  url: string;
  dataDir: string;
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
  // As `npm start` runs it (package.json), young-generation size included.
  const child: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', 'bin/local.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_ISSUER: '', VERIFY_URL_TEMPLATE: verifyTemplate, VERIFY_ALLOW_PRIVATE_ADDRESSES: '1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(child);
  return {
    url,
    dataDir,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    stop: () =>
      new Promise((ok) => {
        child.once('exit', () => ok());
        child.kill('SIGTERM');
      }),
  };
}
