/**
 * Timestream keeps no API requests: it is frozen at the first slice's web
 * reports (README, deploy). Every question about them answers 501; the
 * ingest route refuses before queueing (API_REQUESTS=off), so nothing reaches save.
 */
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';

const refuse = () => Promise.reject(new NotAvailableOnStoreError());

export const TIMESTREAM_API_REQUESTS: ApiRequestStore = {
  saveApiRequests: refuse,
  apiTotals: refuse,
  apiSeries: refuse,
  apiBreakdown: refuse,
  apiDays: refuse,
};
