/**
 * Lambda entry of the hourly crawler sync (EventBridge, issue 41): every link
 * of the registry read from its Cloudflare zone, its token opened with KMS
 * under the crawler context, the hits written to ClickHouse (Timestream,
 * frozen, keeps none: each link records the failure).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { HttpCloudflareClient } from '#adapters/cloudflare/cloudflare-client.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { awsClient } from '#aws/clients.ts';
import { awsCrawlerHits } from '#aws/event-store.ts';
import { systemClock } from '#ports/clock.ts';
import { loadConfig, required } from '#platform/config.ts';
import { log } from '#platform/log.ts';
import { syncAllCrawlerLinks } from '#workers/crawler-sync.ts';

const config = loadConfig();

const deps = {
  crawlerLinks: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName).crawlerLinks,
  crawlerHits: await awsCrawlerHits(config),
  cloudflare: new HttpCloudflareClient({ baseUrl: config.cloudflareApiUrl }),
  secrets: new KmsSecretBox(awsClient(KMSClient), required(config, 'importKmsKeyId')),
  clock: systemClock,
};

export const handler = async () => {
  log.info('crawler sync', { links: await syncAllCrawlerLinks(deps) });
};
