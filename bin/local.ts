/** `npm start`: the single-node server (DESIGN.md §3). */
import '#local/quiet-aws-sdk.ts';
import { loadConfig, type Config } from '#platform/config.ts';
import { startLocalNode, type LocalNode } from '#local/node.ts';
import { nextSteps, startupFailure } from '#local/startup.ts';
import { logLevel } from '#platform/log.ts';

let config: Readonly<Config> | null = null;
let node: LocalNode;
try {
  config = loadConfig();
  node = await startLocalNode(config);
} catch (e) {
  const line = startupFailure(e, config);
  console.error(line === null ? e : `tinytrack: ${line}`);
  process.exit(1);
}
console.log([`tinytrack listening on ${node.url}`, ...nextSteps(node.url, config, logLevel, node.services.mailer.describe)].join('\n'));

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
