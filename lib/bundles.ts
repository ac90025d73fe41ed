/**
 * Every Lambda function's bundle by name, entry and inlined texts, with its
 * budget for its own code (everything but the AWS SDK, minified): what the
 * stack deploys, `npm run bench` times and test/cdk/stack.test.ts holds to
 * the budgets.
 */
import type { RouteGroup } from '#http/routes.ts';
import { GROUP_ACCESS, HTTP_SOURCE_MAPS, groupDefines, httpEntry } from './api.ts';
import { EMBED_ENTRY, SESSION_ENTRY, embedDefines } from './dashboard-edge.ts';
import { EVENT_WRITER_ENTRY } from './event-writer.ts';
import { IMPORT_WORKER_ENTRY } from './imports.ts';
import { ALERT_CHECKS_ENTRY, CRAWLER_SYNC_ENTRY, DIGEST_SENDS_ENTRY, ROTATE_SALTS_ENTRY } from './schedules.ts';
import { SEARCH_SYNC_ENTRY } from './search-console.ts';
import { RETENTION_PURGE_ENTRY } from './retention.ts';
import { ROLLUP_WARM_ENTRY } from './rollup-warm.ts';
import { EVENT_COMPACTION_ENTRY } from './compaction.ts';

const KiB = 1024;

/**
 * HTTP route groups: their own code, minified. 320 KiB since the share links (issue 40, part 5): the
 * digests group has the whole registry, the report SQL, the ClickHouse client and the mail composer
 * (309 KiB at issue 41). The meta group inlines the OpenAPI document gzipped (about 40 KiB of base64
 * rather than 320 KiB of JSON, which had taken this budget to 368 KiB; docs/decisions.md).
 */
export const HTTP_GROUP_BUDGET = 320 * KiB;
/** The collector answers every beacon: its cold start is the one visitors' pages wait on. POST /api/ingest, called by owners' APIs at their own volume, is held to it too. */
export const COLLECTOR_BUDGET = 200 * KiB;
const HIGH_VOLUME_GROUPS: readonly RouteGroup[] = ['collector', 'ingest'];

export interface LambdaBundle {
  /** `http/<group>`, `edge/<name>` (lib/dashboard-edge.ts), `worker/<name>` or `schedule/<name>`. */
  name: string;
  entry: string;
  define: Record<string, string>;
  /** Bytes of its own code at most; none for the queue consumers and schedules. */
  budget: number | null;
  /** Deployed with source maps (lib/node-function.ts NodeFunctionProps.sourceMaps). */
  sourceMaps: boolean;
}

/** `dashboardPage`: the built index.html the embed function inlines (a stand-in of its size when not given). */
export function lambdaBundles(texts: { trackerScript: string; apiDocument: string; dashboardPage?: string }): LambdaBundle[] {
  const groups = Object.keys(GROUP_ACCESS) as RouteGroup[];
  return [
    ...groups.map((group) => ({
      name: `http/${group}`,
      entry: httpEntry(group),
      define: groupDefines(GROUP_ACCESS[group], texts),
      budget: HIGH_VOLUME_GROUPS.includes(group) ? COLLECTOR_BUDGET : HTTP_GROUP_BUDGET,
      sourceMaps: HTTP_SOURCE_MAPS,
    })),
    { name: 'edge/session', entry: SESSION_ENTRY, define: {}, budget: HTTP_GROUP_BUDGET, sourceMaps: HTTP_SOURCE_MAPS },
    { name: 'edge/embed', entry: EMBED_ENTRY, define: embedDefines(texts.dashboardPage ?? '<!doctype html>'), budget: HTTP_GROUP_BUDGET, sourceMaps: HTTP_SOURCE_MAPS },
    { name: 'worker/event-writer', entry: EVENT_WRITER_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'worker/import-worker', entry: IMPORT_WORKER_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/rotate-salts', entry: ROTATE_SALTS_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/alert-checks', entry: ALERT_CHECKS_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/digest-sends', entry: DIGEST_SENDS_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/search-console-sync', entry: SEARCH_SYNC_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/crawler-sync', entry: CRAWLER_SYNC_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/retention-purge', entry: RETENTION_PURGE_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/rollup-warm', entry: ROLLUP_WARM_ENTRY, define: {}, budget: null, sourceMaps: true },
    { name: 'schedule/event-compaction', entry: EVENT_COMPACTION_ENTRY, define: {}, budget: null, sourceMaps: true },
  ];
}
