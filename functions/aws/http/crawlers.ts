/** Lambda entry of the `crawlers` route group: the registry, the issuer, the token-sealing key, Cloudflare and the crawler hits. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { HttpCloudflareClient } from '#adapters/cloudflare/cloudflare-client.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { createCrawlersHandler } from '#http/handlers/crawlers.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { awsCrawlerHits } from '#aws/event-store.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());

export const handler = createCrawlersHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  secrets: new KmsSecretBox(awsClient(KMSClient), required(config, 'importKmsKeyId')),
  cloudflare: new HttpCloudflareClient({ baseUrl: config.cloudflareApiUrl }),
  crawlerHits: await awsCrawlerHits(config),
});
