/** Schemas of retention and erasure (issue 42): the purge's last run (in SiteSetup) and the erasure's answer. */
import { z } from 'zod';

const Timestamp = z.iso.datetime();

export const PurgeRun = z
  .object({
    at: Timestamp.describe('When the purge ran'),
    retention_months: z.number().int().min(1).describe('The months it kept'),
    cutoff: Timestamp.describe('The first instant kept (00:00 UTC of the day after today less retention_months); every row before it was removed'),
    rows_removed: z.number().int().min(0).describe('Rows it removed, every series together (events, API requests, Search Console, crawler hits)'),
    oldest_row_kept: Timestamp.nullable().describe("The site's oldest row left in any series; null when it has none"),
  })
  .meta({ id: 'PurgeRun' });

export const RemovedRows = z
  .object({
    events: z.number().int().min(0).describe('Collected and imported event rows (pageviews, events, appends)'),
    api_requests: z.number().int().min(0),
    search_console: z.number().int().min(0).describe('Search Console rows (a day, dimension and name each)'),
    crawler_hits: z.number().int().min(0).describe('Crawler-hit rows (an hour, crawler and path each)'),
  })
  .meta({ id: 'RemovedRows' });

export const ErasedData = z
  .object({
    hostname: z.string(),
    from: z.string().describe('The first day removed (YYYY-MM-DD, UTC)'),
    to: z.string().describe('The last day removed (YYYY-MM-DD, UTC), included'),
    removed: RemovedRows.describe('Rows removed per series; rollups built from them go too and are not counted'),
  })
  .meta({ id: 'ErasedData' });
