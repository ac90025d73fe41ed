/**
 * How an export reads a range in bounded memory (issue 42): pages of at most
 * `limit` rows in (ts, id) order, each the next rows after a cursor within a
 * time window. The window adapts to the site's traffic: after a full page it
 * becomes the span that page covered (so a busy hour is not scanned again
 * for every page), and it doubles after a short one (so a quiet year is not
 * a query per hour). A store
 * answers one page at a time; nothing holds more than a page.
 */
import type { ExportRow } from './encode.ts';

/** The rows with window.from <= ts < window.to after `after` (by ts, then id), in that order, at most `limit`. */
export interface PageRequest {
  from: number;
  to: number;
  after: { ts: number; id: string } | null;
  limit: number;
}

export const EXPORT_PAGE_ROWS = 5_000;
const FIRST_WINDOW_MS = 3_600_000;
const MAX_WINDOW_MS = 32 * 86_400_000;

/** Every row of [from, to) in (ts, id) order, a page at a time, as `read` answers them. */
export async function* exportPages(read: (page: PageRequest) => Promise<readonly ExportRow[]>, range: { from: number; to: number }, limit = EXPORT_PAGE_ROWS): AsyncGenerator<readonly ExportRow[]> {
  let start = range.from;
  let after: PageRequest['after'] = null;
  let window = FIRST_WINDOW_MS;
  while (start < range.to) {
    const end = Math.min(start + window, range.to);
    const rows = await read({ from: start, to: end, after, limit });
    if (rows.length > 0) yield rows;
    if (rows.length >= limit) {
      const last = rows[rows.length - 1] as ExportRow;
      after = { ts: Number(last.ts), id: String(last.id) };
      // The page spanned [start, last.ts]: about a page's rows fit in that span, so the next window is that long.
      window = Math.max(1, Math.min(window, after.ts - start));
      start = after.ts;
    } else {
      start = end;
      after = null;
      if (rows.length < limit / 2) window = Math.min(window * 2, MAX_WINDOW_MS);
    }
  }
}
