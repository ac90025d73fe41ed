/**
 * The AWS functions' event store on ClickHouse: credentials read once from
 * Secrets Manager (mocked: no local equivalent) and used against a
 * ClickHouse HTTP interface (chDB behind a stand-in) that accepts only them.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { clickHouseCredentials, clickHouseStore } from '#aws/event-store.ts';
import { loadConfig } from '#platform/config.ts';
import { startChdbHttpServer, type ChdbHttpServer } from '../support/chdb-http-server.ts';
import { eventRow } from '../contract/event-store.contract.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-AbCdEf';
const secrets = mockClient(SecretsManagerClient);
let clickhouse: ChdbHttpServer;

beforeAll(async () => {
  clickhouse = await startChdbHttpServer({ user: 'writer', password: 'from-the-secret' });
});
afterAll(() => clickhouse.close());

const config = (env: Record<string, string>) => loadConfig({ CLICKHOUSE_URL: clickhouse.url, CLICKHOUSE_DATABASE: 'aws_test', ...env });

describe('the AWS event store on ClickHouse', () => {
  it('reads the credentials from the secret named by CLICKHOUSE_SECRET_ARN and stores with them', async () => {
    secrets.reset();
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: JSON.stringify({ username: 'writer', password: 'from-the-secret' }) });
    const store = await clickHouseStore(config({ CLICKHOUSE_SECRET_ARN: ARN }), { secrets: new SecretsManagerClient({}) });
    expect(store).toBeInstanceOf(ClickHouseEventStore);
    await store!.saveEvents([eventRow({ site: 'aws.example' })]);
    const [row] = await store!.executor.query<{ n: number }>(`SELECT count() AS n FROM ${store!.table} WHERE site = 'aws.example'`);
    await store!.close();
    expect([Number(row?.n), secrets.commandCalls(GetSecretValueCommand).length]).toEqual([1, 1]);
  });

  it('refuses to start without the secret, and names what is wrong with a malformed one without quoting it', async () => {
    await expect(clickHouseStore(config({}), { secrets: new SecretsManagerClient({}) })).rejects.toThrow('needs CLICKHOUSE_SECRET_ARN');
    expect(() => clickHouseCredentials('{"user":"x","pass":"hunter2-secret"}')).toThrow(/must be JSON \{"username"/);
    expect(() => clickHouseCredentials('hunter2-secret')).not.toThrow(/hunter2/);
    expect(clickHouseCredentials('{"username":"u","password":""}')).toEqual({ user: 'u', password: '' });
  });

  it('attaches a reader without creating or migrating anything', async () => {
    secrets.reset();
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: JSON.stringify({ username: 'writer', password: 'from-the-secret' }) });
    const reader = await clickHouseStore(config({ CLICKHOUSE_SECRET_ARN: ARN, CLICKHOUSE_DATABASE: 'never_migrated' }), { migrate: false, secrets: new SecretsManagerClient({}) });
    const [found] = await reader!.executor.query<{ n: number }>("SELECT count() AS n FROM system.databases WHERE name = 'never_migrated'");
    await reader!.close();
    expect(Number(found?.n)).toBe(0);
  });

  it('is not used when the stack chose Timestream (no CLICKHOUSE_URL)', async () => {
    expect(await clickHouseStore(loadConfig({ TIMESTREAM_DATABASE: 'db', TIMESTREAM_TABLE: 't' }), { secrets: new SecretsManagerClient({}) })).toBeNull();
  });
});
