/**
 * The report contract against real Amazon Timestream, only when credentials
 * and a table are configured (TT_TIMESTREAM_DATABASE, TT_TIMESTREAM_TABLE).
 * Rows are seeded with TimestreamEventStore; the table needs magnetic store
 * writes enabled (the contract seeds 2024 dates and rows 32 days old), as
 * the stack's table has. Each save waits until Timestream returns the rows,
 * since magnetic store writes land asynchronously.
 */
import { TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { TimestreamWriteClient } from '@aws-sdk/client-timestream-write';
import { describe, vi } from 'vitest';
import { TimestreamEventStore } from '#adapters/timestream/timestream-event-store.ts';
import { TimestreamReportStore } from '#adapters/timestream/timestream-report-store.ts';
import { sqlIdentifier, sqlString } from '#reports/sql/text.ts';
import { uniqueEvents, type EventRow, type EventStore } from '#ports/event-store.ts';
import { reportContract } from './report-store.contract.ts';

const database = process.env.TT_TIMESTREAM_DATABASE ?? '';
const table = process.env.TT_TIMESTREAM_TABLE ?? '';
const enabled = Boolean(process.env.AWS_ACCESS_KEY_ID && process.env.TT_TIMESTREAM_DATABASE && process.env.TT_TIMESTREAM_TABLE);

/** How long a seeded batch may take to become visible to queries. */
const VISIBLE_WITHIN_MS = 240_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(enabled)('Timestream reports (real AWS)', () => {
  // Seeding waits for asynchronous magnetic store writes: well past the default 30 s.
  vi.setConfig({ testTimeout: VISIBLE_WITHIN_MS + 60_000 });

  reportContract('Timestream', async () => {
    const write = new TimestreamWriteClient({});
    const query = new TimestreamQueryClient({});
    const store = new TimestreamEventStore(write, database, table);
    const reports = new TimestreamReportStore(query, database, table);

    /** Records of these rows that queries see now. */
    const visible = async (rows: readonly EventRow[]) => {
      const sites = [...new Set(rows.map((r) => r.site))].map(sqlString).join(', ');
      const ids = [...new Set(rows.map((r) => r.id))].map(sqlString).join(', ');
      const out = await reports.query(
        `SELECT count(*) AS "n" FROM ${sqlIdentifier(database)}.${sqlIdentifier(table)} WHERE site IN (${sites}) AND id IN (${ids})`,
      );
      return Number(out[0]?.n ?? 0);
    };

    const events: EventStore = {
      async saveEvents(rows) {
        const before = { ...store.stats.rejected };
        await store.saveEvents(rows);
        const rejected = Object.entries(store.stats.rejected).filter(([reason, n]) => n !== (before[reason] ?? 0));
        if (rejected.length > 0) throw new Error(`Timestream rejected seeded rows: ${JSON.stringify(rejected)}`);
        const expected = uniqueEvents(rows).length;
        const deadline = Date.now() + VISIBLE_WITHIN_MS;
        while ((await visible(rows)) < expected) {
          if (Date.now() > deadline) throw new Error(`seeded rows not visible after ${VISIBLE_WITHIN_MS} ms`);
          await sleep(2_000);
        }
      },
      close: () => store.close(),
    };

    return {
      events,
      reports,
      close: async () => {
        write.destroy();
        query.destroy();
      },
    };
  });
});
