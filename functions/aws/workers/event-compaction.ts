/** Lambda entry of the S3 store's hourly compaction (EventBridge; issue 44): each site-day's small files merged into one (adapters/s3-events/compactor.ts). */
import { awsCompaction } from '#aws/event-store.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';
import { log } from '#platform/log.ts';

const config = loadConfig(lambdaEnv());
const compaction = await awsCompaction(config);
if (!compaction) throw new Error('the event compaction needs the S3 event store (EVENTS_BUCKET)');
const compact = compaction;

export async function handler(): Promise<{ siteDays: number }> {
  const siteDays = await compact();
  log.info('event compaction', { siteDays });
  return { siteDays };
}
