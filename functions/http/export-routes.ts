/**
 * The owner's export (issue 42) in the route table, group `export`: a site's
 * raw rows as CSV or NDJSON, streamed. Owner only (ID token or `read` key),
 * also for public sites. Listed by functions/http/routes.ts.
 */
import { EXPORT_COLUMNS } from '#domain/export/columns.ts';
import { EXPORT_QUERY_ERRORS } from '#domain/export/request.ts';
import { ExportTooLargeError, NotAvailableOnStoreError } from '#domain/errors.ts';
import { invalidInput, refusals, siteReader, type RouteDef } from './route-def.ts';

const columnList = (series: keyof typeof EXPORT_COLUMNS) => EXPORT_COLUMNS[series].map((c) => c.name).join(', ');

export const exportRoutes: readonly RouteDef[] = [
  {
    method: 'GET',
    path: '/api/sites/{hostname}/export',
    group: 'export',
    auth: 'owner',
    scope: 'read',
    summary:
      "The site's raw rows in a range, streamed as a download (Content-Disposition: attachment), ordered by time then id: collected and imported " +
      'pageviews, events and appends (`series=events`) or API requests (`series=api`). Owner only (ID token or read key), also for public sites. ' +
      'Never a visitor hash or session id: the columns are a fixed list (docs/export.md). ' +
      `events: ${columnList('events')}. api: ${columnList('api')}. ` +
      'On AWS it is served by the export Function URL (response streaming), not the HTTP API, and one export holds at most EXPORT_MAX_ROWS rows (400 beyond).',
    query: {
      series: 'events (default) or api',
      format: 'csv (default; RFC 4180, header line, CRLF) or ndjson (one JSON object per line)',
      from: 'First day, YYYY-MM-DD, included; default 29 days before to',
      to: 'Last day, YYYY-MM-DD, included; default today in tz',
      tz: 'IANA timezone the days are in; default UTC',
    },
    responses: {
      200: {
        description: 'the rows (CSV: text/csv; NDJSON: application/x-ndjson)',
        contentType: 'text/csv',
        headers: { 'Content-Disposition': 'attachment; filename="<hostname>-<series>-<from>-<to>.<format>"' },
      },
      ...refusals(invalidInput(EXPORT_QUERY_ERRORS), ExportTooLargeError, ...siteReader, NotAvailableOnStoreError),
    },
  },
];
