/**
 * The EventStore contract against real Amazon Timestream, only when
 * credentials and a database are configured (TT_TIMESTREAM_DATABASE, table
 * TT_TIMESTREAM_TABLE, default `events`). Rows are counted with the query API.
 */
import { QueryCommand, TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { TimestreamWriteClient } from '@aws-sdk/client-timestream-write';
import { describe } from 'vitest';
import { TimestreamEventStore } from '#adapters/timestream/timestream-event-store.ts';
import { eventStoreContract } from './event-store.contract.ts';
import { log } from '#platform/log.ts';

const database = process.env.TT_TIMESTREAM_DATABASE ?? '';
const table = process.env.TT_TIMESTREAM_TABLE ?? 'events';
const enabled = Boolean(process.env.AWS_ACCESS_KEY_ID && process.env.TT_TIMESTREAM_DATABASE);

describe.runIf(enabled)('Timestream (real AWS)', () => {
  eventStoreContract('Timestream', async () => {
    const write = new TimestreamWriteClient({});
    const query = new TimestreamQueryClient({});
    return {
      store: new TimestreamEventStore(write, database, table, { log }),
      countRows: async (site) => {
        // Test sites are generated ([a-z0-9.-]), so inlining is safe here.
        const result = await query.send(
          new QueryCommand({ QueryString: `SELECT count(*) FROM "${database}"."${table}" WHERE site = '${site}' AND time > ago(1d)` }),
        );
        return Number(result.Rows?.[0]?.Data?.[0]?.ScalarValue ?? 0);
      },
      close: async () => {
        write.destroy();
        query.destroy();
      },
    };
  });
});
