/** The report contract against every report store (report-stores.ts says why a store's run is skipped). */
import { afterAll } from 'vitest';
import { closeChdb } from '../support/chdb-executor.ts';
import { REPORT_STORES } from './report-stores.ts';
import { reportContract } from './report-store.contract.ts';
import { exitPagesContract } from './exit-pages.contract.ts';

for (const store of REPORT_STORES) {
  reportContract(store);
  exitPagesContract(store);
}

afterAll(closeChdb);
