/** Starts and stops the whole single-node service; used by `npm start` and the integration tests. */
import type { AddressInfo } from 'node:net';
import type { Config } from '#platform/config.ts';
import { createLocalAdapters, startLocalStore } from '#platform/local.ts';
import { setServices, withInstanceState, type Services } from '#platform/services.ts';
import { groupHandlers } from '#http/handlers/index.ts';
import { createLocalServer } from './http-server.ts';

export interface LocalNode {
  url: string;
  services: Services;
  stop(): Promise<void>;
}

export async function startLocalNode(config: Readonly<Config>): Promise<LocalNode> {
  const store = await startLocalStore(config);
  const services = withInstanceState(createLocalAdapters(config, store));
  setServices(services);
  const server = createLocalServer({ groups: groupHandlers, trustProxy: config.trustProxy });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(config.port, config.host, () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.host}:${port}`,
    services,
    stop: async () => {
      // Stop taking requests, let those in flight finish, then close the stores.
      await new Promise<void>((ok) => server.close(() => ok()));
      server.closeAllConnections();
      await store.close();
    },
  };
}
