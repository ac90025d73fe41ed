/** Schemas of retention and erasure (issue 42, docs/api.md "Retention and erasure"): the purge's last run (in SiteSetup) and the erasure's answer. */
import { z } from 'zod';

const Timestamp = z.iso.datetime();
const Count = z.number().int().min(0);

export const PurgeRun = z
  .object({
    at: Timestamp,
    retention_months: z.number().int().min(1),
    cutoff: Timestamp.describe('The first instant kept'),
    rows_removed: Count,
    oldest_row_kept: Timestamp.nullable(),
  })
  .meta({ id: 'PurgeRun' });

export const ErasedData = z
  .object({
    hostname: z.string(),
    from: z.string(),
    to: z.string(),
    removed: z.object({ events: Count, api_requests: Count, search_console: Count, crawler_hits: Count }).describe('Rows removed per series'),
  })
  .meta({ id: 'ErasedData' });
