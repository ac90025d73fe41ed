/**
 * What an owner's export (issue 42, GET /api/sites/{h}/export) carries: an
 * allow-list of columns per series, each with its type and meaning. Only
 * these stored columns are ever read for an export; the daily visitor hash,
 * the client's session id, the registration and the stores' own keys and
 * flags are not in the list, so they never leave the service
 * (docs/export.md, test/integration/export.test.ts).
 */

export const EXPORT_SERIES = ['events', 'api'] as const;
export type ExportSeries = (typeof EXPORT_SERIES)[number];
export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type ExportColumnType = 'string' | 'integer' | 'number' | 'boolean';

export interface ExportColumn {
  /** The name in the file (CSV header, NDJSON key). */
  name: string;
  /** The stored column it is read from (the same name but for `time`, read from `ts`). */
  stored: string;
  type: ExportColumnType;
  /** May be empty (CSV) / null (NDJSON). */
  nullable: boolean;
  description: string;
}

const col = (name: string, type: ExportColumnType, description: string, nullable = true): ExportColumn => ({ name, stored: name, type, nullable, description });
const time = (description: string): ExportColumn => ({ name: 'time', stored: 'ts', type: 'string', nullable: false, description: `${description}, ISO 8601 in UTC with milliseconds; rows are in this order` });

/** Collected and imported rows: pageviews, custom events and appends (duration and scroll of a pageview). */
export const EVENT_EXPORT_COLUMNS: readonly ExportColumn[] = [
  time("When the row arrived (the collector's clock; for an imported row, its time at the source)"),
  col('kind', 'string', '`pageview`, `event` or `append` (an append adds duration and scroll to the pageview named by original_id)', false),
  col('id', 'string', "The row's id: resends of one pageview or event carry the same id", false),
  col('original_id', 'string', 'For an append: the id of its pageview'),
  col('page_id', 'string', 'The page load the row belongs to, as the tracker sent it'),
  col('event', 'string', 'The custom event name, normalized (kind event)'),
  col('path', 'string', 'The page path'),
  col('query', 'string', "The page's query string as stored"),
  col('https', 'boolean', 'The page was served over https'),
  col('referrer', 'string', 'The referrer as stored'),
  col('referrer_host', 'string', "The referring URL's host"),
  col('source', 'string', 'The derived source: the campaign source first, then a known name for the referring host'),
  col('utm_source', 'string', 'Campaign tag'),
  col('utm_medium', 'string', 'Campaign tag'),
  col('utm_campaign', 'string', 'Campaign tag'),
  col('utm_term', 'string', 'Campaign tag'),
  col('utm_content', 'string', 'Campaign tag'),
  col('country', 'string', 'ISO 3166-1 alpha-2 code, from the browser\'s timezone (never from an IP address)'),
  col('browser', 'string', 'Browser name'),
  col('os', 'string', 'Operating system name'),
  col('device', 'string', 'Device type: desktop, mobile or tablet'),
  col('language', 'string', 'Browser language tag'),
  col('viewport_width', 'integer', 'CSS pixels'),
  col('viewport_height', 'integer', 'CSS pixels'),
  col('screen_width', 'integer', 'CSS pixels'),
  col('screen_height', 'integer', 'CSS pixels'),
  col('duration', 'number', 'Seconds on the page (appends)'),
  col('scrolled', 'integer', 'Percent of the page scrolled, 0..100 (appends)'),
  col('unique', 'boolean', "The tracker's unique-entry flag: the pageview began a visit (reports count it for rows without a visitor hash)"),
  col('bot', 'boolean', 'Sent by a robot (user agent or the bot field); reports leave these out', false),
  col('imported', 'boolean', 'Imported from another analytics service rather than collected', false),
  col('source_id', 'string', "The import source's own id of an imported row"),
  col('metadata', 'string', 'Event metadata as a JSON text (at most 4,096 characters)'),
];

/** The API-requests series (POST /api/ingest). */
export const API_EXPORT_COLUMNS: readonly ExportColumn[] = [
  time('When the request was received by POST /api/ingest'),
  col('id', 'string', "The request's id", false),
  col('method', 'string', 'HTTP method, upper case', false),
  col('route', 'string', 'The route template (never a raw path)', false),
  col('status', 'integer', 'HTTP status', false),
  col('duration_ms', 'number', 'Milliseconds', false),
  col('bytes_in', 'integer', 'Request body bytes'),
  col('bytes_out', 'integer', 'Response body bytes'),
  col('consumer', 'string', "The owner's opaque label of the caller"),
];

export const EXPORT_COLUMNS: Readonly<Record<ExportSeries, readonly ExportColumn[]>> = { events: EVENT_EXPORT_COLUMNS, api: API_EXPORT_COLUMNS };
