/** Starts and stops the whole single-node service; used by `npm start` and the integration tests. */
import type { AddressInfo } from 'node:net';
import type { Config } from '#platform/config.ts';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '#platform/local.ts';
import { withInstanceState, type Services } from '#platform/services.ts';
import { groupHandlers } from '#http/handlers/index.ts';
import { createLocalServer } from './http-server.ts';
import { assertDataDirFree } from './startup.ts';
import { scheduleSaltRotation } from '#workers/rotate-salts.ts';

export interface LocalNode {
  url: string;
  services: Services;
  runtime: LocalRuntime;
  stop(): Promise<void>;
}

export async function startLocalNode(config: Readonly<Config>, options: LocalRuntimeOptions = {}): Promise<LocalNode> {
  await assertDataDirFree(config.dataDir);
  const runtime = await startLocalRuntime(config, options);
  const services = withInstanceState(runtime.adapters, { collectorInProcess: true });
  const stopRotation = scheduleSaltRotation(services.registry, () => services.clock.now());
  const server = createLocalServer({ groups: groupHandlers, trustedProxies: config.trustedProxies, services });
  try {
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(config.port, config.host, () => ok());
    });
  } catch (e) {
    // The port is taken (or not ours): release the stores so the caller can report it and exit.
    await stopRotation();
    await runtime.close();
    throw e;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  // PUBLIC_URL's default names this server, whose port (PORT=0) is known only now.
  if (config.publicUrls === null) services.publicOrigins = [url];
  return {
    url,
    services,
    runtime,
    stop: async () => {
      // Stop taking requests, let those in flight finish, then drain and close the stores.
      const rotationStopped = stopRotation();
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      server.closeIdleConnections();
      await closed;
      await rotationStopped;
      await runtime.close();
      services.collectorDrops.flush();
    },
  };
}
