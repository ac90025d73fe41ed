/** The single-table layout (DESIGN.md §5), shared by the stack, the local bootstrap and the registry. */
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';

export const keys = {
  site: (hostname: string) => ({ pk: `SITE#${hostname}`, sk: 'SITE' }),
  sitesOf: (uid: string) => `SITES#${uid}`,
  account: (uid: string) => ({ pk: `ACCOUNT#${uid}`, sk: 'ACCOUNT' }),
  managementKey: (secretHash: string) => ({ pk: `MKEY#${secretHash}`, sk: 'MKEY' }),
  managementKeysOf: (uid: string) => `MKEYS#${uid}`,
  salts: 'SALTS',
  salt: (day: string) => ({ pk: 'SALTS', sk: `DAY#${day}` }),
  // Imports (functions/adapters/dynamodb/import-jobs.ts): under the site, so a site delete removes them.
  importJob: (hostname: string, id: string) => ({ pk: `SITE#${hostname}`, sk: `IMPORT#${id}` }),
  importJobPrefix: 'IMPORT#',
  importCredentials: (hostname: string, id: string) => ({ pk: `SITE#${hostname}`, sk: `IMPORTKEY#${id}` }),
  importActive: (hostname: string) => ({ pk: `SITE#${hostname}`, sk: 'IMPORT_ACTIVE' }),
  // DNS claims (functions/domain/site-claim.ts): one per claimant under the site, so a delete or a move removes them.
  claim: (hostname: string, claimantUid: string) => ({ pk: `SITE#${hostname}`, sk: `CLAIM#${claimantUid}` }),
  // Site API keys (functions/adapters/dynamodb/site-api-keys.ts): under the site, so a delete or a move removes them;
  // found by their secret's hash on gsi1.
  siteApiKey: (hostname: string, id: string) => ({ pk: `SITE#${hostname}`, sk: `SKEY#${id}` }),
  siteApiKeyPrefix: 'SKEY#',
  siteApiKeyHash: (secretHash: string) => `SKEY#${secretHash}`,
  // Alert rules (functions/adapters/dynamodb/alert-rules.ts): under the site, with their state changes beside them;
  // enabled rules are listed on gsi1 for the every-minute check.
  alertRule: (hostname: string, id: string) => ({ pk: `SITE#${hostname}`, sk: `ALERT#${id}` }),
  alertRulePrefix: 'ALERT#',
  alertChange: (hostname: string, id: string, at: string) => ({ pk: `SITE#${hostname}`, sk: `ALERTLOG#${id}#${at}` }),
  alertChangesOf: (id: string) => `ALERTLOG#${id}#`,
  enabledAlerts: 'ALERTS_ENABLED',
  // Goals and funnels (functions/adapters/dynamodb/site-records.ts): under the site, so a delete or a move removes them.
  goalPrefix: 'GOAL#',
  funnelPrefix: 'FUNNEL#',
  // E-mail digests (functions/adapters/dynamodb/email-reports.ts): a site's reports under the site, an account's defaults and
  // workspace digest under the account; every enabled one listed on gsi1 by its next send time; the unsubscribe links' secret.
  emailReportPrefix: 'REPORT#',
  reportDefaults: (uid: string) => ({ pk: `ACCOUNT#${uid}`, sk: 'REPORT_DEFAULTS' }),
  workspaceDigest: (uid: string) => ({ pk: `ACCOUNT#${uid}`, sk: 'WORKSPACE_DIGEST' }),
  digestsDue: 'DIGESTS_DUE',
  unsubscribeSecret: { pk: 'SECRET#unsubscribe', sk: 'SECRET' },
  activeImports: 'IMPORTS_ACTIVE',
  importsBy: (uid: string) => `IMPORTS_BY#${uid}`,
  // Share links (functions/adapters/dynamodb/share-links.ts): under the site, so a delete or a move removes them;
  // found by their slug's hash on gsi1; the read grants' signing secret.
  shareLinkPrefix: 'SHARE#',
  shareSlugHash: (slugHash: string) => `SHARESLUG#${slugHash}`,
  shareSecret: { pk: 'SECRET#share', sk: 'SECRET' },
  // Crawler links (functions/adapters/dynamodb/crawler-links.ts): under the site, so a delete or a move removes the link and its
  // sealed token; every link listed on gsi1 for the hourly sync.
  crawlerLink: (hostname: string) => ({ pk: `SITE#${hostname}`, sk: 'CRAWLERS_LINK' }),
  crawlerLinks: 'CRAWLER_LINKS',
  // Local sign-in (functions/adapters/dynamodb/login-links.ts): one item per unused link, by the code's hash.
  loginLink: (codeHash: string) => ({ pk: `LOGIN#${codeHash}`, sk: 'LOGIN' }),
  // Local dashboard sessions (functions/adapters/dynamodb/login-links.ts): one item per session, by its id's hash.
  dashboardSession: (idHash: string) => ({ pk: `SESSION#${idHash}`, sk: 'SESSION' }),
  // Search Console (functions/adapters/dynamodb/search-links.ts): the link under the site, so a delete or a move
  // removes it and its sealed token; linked sites listed on gsi1 for the daily sync; consent states by their hash.
  searchLink: (hostname: string) => ({ pk: `SITE#${hostname}`, sk: 'GSC' }),
  searchLinks: 'GSC_LINKS',
  oauthState: (stateHash: string) => ({ pk: `OAUTHSTATE#${stateHash}`, sk: 'OAUTHSTATE' }),
  // The live stream (functions/adapters/dynamodb/live-streams.ts): tickets by their hash, an account's stream slots.
  liveTicket: (ticketHash: string) => ({ pk: `LIVETICKET#${ticketHash}`, sk: 'LIVETICKET' }),
  liveSlot: (uid: string, slot: number) => ({ pk: `LIVE#${uid}`, sk: `SLOT#${slot}` }),
};

export const GSI1 = 'gsi1';

/** Creates the table when it does not exist (local runs; the stack owns it in AWS). */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException) && (e as Error).name !== 'ResourceNotFoundException') throw e;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
        { AttributeName: 'gsi1sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: GSI1,
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  for (let i = 0; i < 100; i++) {
    const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (d.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`table ${tableName} did not become active`);
}
