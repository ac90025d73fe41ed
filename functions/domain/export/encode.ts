/**
 * Export rows as file text (issue 42): CSV after RFC 4180 (papaparse's
 * `unparse`: a field is quoted when it holds a comma, a quote, a line break
 * or edge spaces, quotes doubled, lines ended by CRLF, a header line first),
 * or NDJSON (one JSON object per line, LF). Each row is written with the
 * series' columns only, in their order (columns.ts).
 *
 * CSV text cells that a spreadsheet would run as a formula (starting with
 * `=`, `+`, `-`, `@`, a tab or a CR) get a leading `'` (papaparse's
 * `escapeFormulae`): paths, referrers, campaign tags and metadata are sent
 * by anyone's browser. Numbers and booleans are never changed, and NDJSON
 * keeps every value exactly as stored.
 */
import Papa from 'papaparse';
import type { ExportColumn, ExportFormat } from './columns.ts';

/** A row as a store reads it: the stored names of the series' columns (ts as Unix ms). */
export type ExportRow = Readonly<Record<string, unknown>>;

const CRLF = '\r\n';

/** A stored value as the column's JSON value: integers may come as bigint (DuckDB BIGINT), `time` from Unix ms. */
function valueOf(column: ExportColumn, row: ExportRow): string | number | boolean | null {
  const v = row[column.stored];
  if (v === null || v === undefined) return null;
  if (column.stored === 'ts') return new Date(Number(v)).toISOString();
  switch (column.type) {
    case 'integer':
    case 'number':
      return Number(v);
    case 'boolean':
      return Boolean(v);
    default:
      return String(v);
  }
}

/** The lines of `rows` in `format` (each ended by its newline); the CSV header is csvHeader's. */
export function encodeRows(format: ExportFormat, columns: readonly ExportColumn[], rows: readonly ExportRow[]): string {
  if (rows.length === 0) return '';
  const values = rows.map((row) => columns.map((c) => valueOf(c, row)));
  if (format === 'ndjson') {
    let out = '';
    for (const line of values) out += JSON.stringify(Object.fromEntries(columns.map((c, i) => [c.name, line[i]]))) + '\n';
    return out;
  }
  return Papa.unparse(values, { header: false, newline: CRLF, escapeFormulae: true }) + CRLF;
}

/**
 * Rows encoded per string written: a page's text in one string (5,000 rows, 0.7 to 3 MB) would
 * be a large object, which V8 frees only in a full collection, so a 10 M-row export piled them
 * up; strings of 250 rows (under 150 KB) stay young and die young.
 */
export const ENCODE_ROWS = 250;

/** `rows` encoded as encodeRows does, in strings of at most ENCODE_ROWS rows each. */
export function* encodeChunks(format: ExportFormat, columns: readonly ExportColumn[], rows: readonly ExportRow[]): Generator<string> {
  for (let i = 0; i < rows.length; i += ENCODE_ROWS) yield encodeRows(format, columns, rows.slice(i, i + ENCODE_ROWS));
}

/** What a file starts with: the CSV header line; nothing for NDJSON. */
export const fileHeader = (format: ExportFormat, columns: readonly ExportColumn[]): string =>
  format === 'csv' ? Papa.unparse([columns.map((c) => c.name)], { header: false, newline: CRLF }) + CRLF : '';

export const CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' };
