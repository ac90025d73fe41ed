/** `npm start`: the single-node server (DESIGN.md §3). */
import { ConfigError, loadConfig, type Config } from '#platform/config.ts';
import { startLocalNode } from '#local/node.ts';

let config: Readonly<Config>;
try {
  config = loadConfig();
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  console.error(e.message);
  process.exit(1);
}
const node = await startLocalNode(config);
console.log(`tinytrack listening on ${node.url}`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    node
      .stop()
      .then(() => {
        console.log('tinytrack stopped: queue drained, stores closed');
        process.exit(0);
      })
      .catch((e: unknown) => {
        console.error(e);
        process.exit(1);
      });
  });
}
