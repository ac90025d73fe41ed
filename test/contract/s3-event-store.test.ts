/** The EventStore contract on the S3 store (issue 44), over s3rver and dynalite: rows as its reports read them. */
import { DAY_MS } from '#domain/rows/days.ts';
import { eventStoreContract } from './event-store.contract.ts';
import { startLocalS3 } from '../support/s3-events.ts';

eventStoreContract('S3 (s3rver, dynalite)', async () => {
  const local = await startLocalS3();
  const events = await local.open();
  const store = await events.writer();
  const mirror = await events.mirror();
  return {
    store,
    countRows: async (site) => {
      const now = Date.now();
      const rows = await mirror.over([{ site, registration: 'reg-contract' }, { site, registration: 'reg-first-owner' }, { site, registration: 'reg-next-owner' }], now - DAY_MS, now + DAY_MS, () =>
        mirror.query<{ n: bigint }>(`SELECT count(*) AS n FROM events WHERE site = $site`, { site }),
      );
      return Number(rows[0]?.n ?? 0);
    },
    close: () => local.close(),
  };
});
