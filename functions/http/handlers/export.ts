/**
 * Route group `export` (issue 42): a site's raw rows for its owner (ID token
 * or `read` key; owner only, also for public sites), streamed a page at a
 * time (domain/export/pages.ts) with back-pressure, so memory stays bounded
 * whatever the range. The first page is read before the answer starts, so a
 * store that cannot export (Timestream, 501) or is down answers its JSON
 * error; a failure after that cuts the connection (functions/local/http-server.ts).
 * On AWS the group runs in a response-streaming function behind its own
 * Function URL (functions/aws/streaming.ts).
 */
import { EXPORT_COLUMNS, type ExportColumn, type ExportFormat } from '#domain/export/columns.ts';
import { CONTENT_TYPES, encodeChunks, fileHeader, type ExportRow } from '#domain/export/encode.ts';
import { exportPages } from '#domain/export/pages.ts';
import { exportFileName } from '#domain/export/file-name.ts';
import { parseExportQuery } from '#domain/export/request.ts';
import { ExportTooLargeError, InvalidInputError, NotAvailableOnStoreError } from '#domain/errors.ts';
import { registrationOf } from '#domain/registration.ts';
import type { Services } from '#platform/services.ts';
import { createGroupHandler, type ApiRequest as AnyApiRequest, type ApiResponse, type StreamSink } from '../api.ts';
import { requireOwnedSiteRead, type AuthServices } from '../auth.ts';

export type ExportServices = AuthServices & Pick<Services, 'rowExport' | 'apiRequestsAvailable'> & { config: Pick<Services['config'], 'exportMaxRows'> };
type ApiRequest = AnyApiRequest<ExportServices>;

/** Writes the file: its header, then each page as it comes, waiting for the client after each; stops when the client goes. */
async function writeFile(sink: StreamSink, format: ExportFormat, columns: readonly ExportColumn[], first: IteratorResult<readonly ExportRow[]>, pages: AsyncGenerator<readonly ExportRow[]>): Promise<void> {
  sink.write(fileHeader(format, columns));
  for (let page = first; !page.done; page = await pages.next()) {
    if (sink.closed.aborted) break;
    for (const text of encodeChunks(format, columns, page.value)) sink.write(text);
    await sink.drained();
  }
  await pages.return(undefined);
}

async function exportRows(req: ApiRequest): Promise<ApiResponse> {
  const { site } = await requireOwnedSiteRead(req, req.params.hostname ?? '');
  const parsed = parseExportQuery(req.query, req.services.clock.now());
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const q = parsed.value;
  if (q.series === 'api' && !req.services.apiRequestsAvailable) throw new NotAvailableOnStoreError();
  const ref = { site: site.hostname, registration: registrationOf(site) };
  const max = req.services.config.exportMaxRows;
  if (max !== null && (await req.services.rowExport.exportCount(q.series, ref, q)) > max) throw new ExportTooLargeError();
  const pages = exportPages((page) => req.services.rowExport.exportPage(q.series, ref, page), q);
  const first = await pages.next();
  return {
    statusCode: 200,
    headers: {
      'Content-Type': CONTENT_TYPES[q.format],
      'Content-Disposition': `attachment; filename="${exportFileName(site.hostname, q)}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
    stream: (sink) => writeFile(sink, q.format, EXPORT_COLUMNS[q.series], first, pages),
  };
}

export const handler = createGroupHandler<ExportServices>({
  'GET /api/sites/{hostname}/export': exportRows,
});
