/**
 * CSV files of what a panel shows (issue 40, part 5), built in the page: pure,
 * no DOM (test/unit/csv.test.ts). RFC 4180 quoting (a cell with a quote,
 * comma, CR or LF is quoted, quotes doubled), CRLF line ends, and cells that
 * a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, or a
 * tab or CR before one) prefixed with `'`. Numbers are written as numbers, so
 * a negative count stays a number; only text is guarded.
 */
export type CsvCell = string | number | null;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell as CSV text. */
export function csvCell(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  const guarded = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** A header row and the rows, CRLF after each line. */
export const toCsv = (header: readonly string[], rows: readonly (readonly CsvCell[])[]): string =>
  [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');

/** The rows of a breakdown panel: name, visitors, and its value (pageviews, entries or events) when it has one. */
export function breakdownCsv(rows: readonly { name: string; visitors: number; value?: number }[], valueLabel: string | null): string {
  const header = valueLabel === null ? ['name', 'visitors'] : ['name', 'visitors', valueLabel.toLowerCase()];
  return toCsv(
    header,
    rows.map((r) => (valueLabel === null ? [r.name, r.visitors] : [r.name, r.visitors, r.value ?? 0])),
  );
}

/** The chart's numbers: each bucket's start (ISO 8601, UTC), pageviews and visitors. */
export const seriesCsv = (series: readonly { t: number; pageviews: number; visitors: number }[]): string =>
  toCsv(
    ['bucket_start', 'pageviews', 'visitors'],
    series.map((p) => [new Date(p.t * 1000).toISOString(), p.pageviews, p.visitors]),
  );

/** A file name from its parts: lower case, anything but letters, digits, dots and dashes folded to `-`. */
export const csvFileName = (...parts: readonly string[]): string =>
  `${parts
    .map((p) => p.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^-+|-+$/g, ''))
    .filter(Boolean)
    .join('-')}.csv`;
