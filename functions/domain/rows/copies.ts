/**
 * Which stored rows reports count, one rule for every store (docs/decisions.md
 * "Report dialects"). A client sends one stable id per logical event (spec
 * part 4), and a resend carries it again, so a row is a **copy** when a row of
 * the same site, registration, kind and id arrived at most COPY_WINDOW_MS
 * before it. Copies never count: an id counts once, at its earliest row, with
 * that row's labels; an id seen again after a longer silence counts again.
 * Whether a row is a copy depends on the stored rows alone, never on the
 * report's range, so buckets and adjacent ranges add up.
 *
 * An append adds to the canonical pageview of its original_id that arrived at
 * most APPEND_WINDOW_MS (domain/rows/flags) before it (two canonical pageviews of an id are more
 * than a window apart, so there is at most one).
 */
import type { EventRow } from '#domain/rows/event-row.ts';
import { COPY_WINDOW_MS } from '#domain/rows/flags/flag-index.ts';

type Keyed = Pick<EventRow, 'site' | 'registration' | 'kind' | 'id' | 'ts'>;

/** The reference form of the rule: for each row, whether it is a copy. Rows sharing (site, registration, kind, id, ts) are one row (the stores keep the first). */
export function copyFlags(rows: readonly Keyed[]): boolean[] {
  const byKey = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const key = `${r.site}\u0000${r.registration}\u0000${r.kind}\u0000${r.id}`;
    const list = byKey.get(key) ?? [];
    list.push(i);
    byKey.set(key, list);
  });
  const copy = rows.map(() => false);
  for (const list of byKey.values()) {
    list.sort((a, b) => rows[a]!.ts - rows[b]!.ts || a - b);
    list.forEach((i, k) => {
      if (k === 0) return;
      const gap = rows[i]!.ts - rows[list[k - 1]!]!.ts;
      copy[i] = gap <= COPY_WINDOW_MS;
    });
  }
  return copy;
}
