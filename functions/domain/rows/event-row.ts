/**
 * A stored row: one pageview, custom event or append (DESIGN.md §5), as the
 * collector and the importer make it, the writer flags it and the reports
 * read it; its size in memory and the identity every store de-duplicates on.
 */
import { RowKeyMap } from '#domain/row-key-map.ts';

export type EventKind = 'pageview' | 'event' | 'append';

export interface EventRow {
  site: string;
  /**
   * The registration that collected or imported the row (domain/registration.ts):
   * reports of a site read only its current registration's rows.
   */
  registration: string;
  /** Arrival time, Unix milliseconds (assigned by the collector, never by the client). */
  ts: number;
  kind: EventKind;
  /** Stable per logical event; resends and redeliveries carry the same id and ts. */
  id: string;
  /** For appends: the id of the parent pageview. */
  original_id: string | null;
  /** Normalized custom event name (kind = event). */
  event: string | null;
  /** Daily visitor hash; null for imported rows. */
  visitor: string | null;
  unique: boolean | null;
  page_id: string | null;
  session_id: string | null;
  path: string | null;
  query: string | null;
  referrer: string | null;
  referrer_host: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  /** Derived acquisition source: campaign source first, then the referring host. */
  source: string | null;
  country: string | null;
  browser: string | null;
  os: string | null;
  device: string | null;
  language: string | null;
  viewport_width: number | null;
  viewport_height: number | null;
  screen_width: number | null;
  screen_height: number | null;
  /** Seconds. */
  duration: number | null;
  /** Percent 0..100. */
  scrolled: number | null;
  bot: boolean;
  /** Serialized JSON, at most 4,096 characters. */
  metadata: string | null;
  https: boolean | null;
  imported: boolean;
  /** The import source's stable id (Simple Analytics uuid) for imported rows. */
  source_id: string | null;
}

/** A text's rough size in memory: a header and two bytes a character, or a word for null (or a field an older version did not write). */
const textBytes = (text: string | null | undefined): number => (typeof text === 'string' ? 16 + 2 * text.length : 8);

/** The object, a word per field (37), and a word per value that is no text (11 numbers and flags). */
const EVENT_ROW_BASE_BYTES = 16 + 37 * 8 + 11 * 8;

/**
 * An event row's rough size in memory, as approxBytes (adapters/memory-queue)
 * counts it, but written out: walking the row's keys cost the collector's
 * queue more than a microsecond a row.
 */
export function eventRowBytes(r: EventRow): number {
  return (
    EVENT_ROW_BASE_BYTES +
    textBytes(r.site) + textBytes(r.registration) + textBytes(r.kind) + textBytes(r.id) + textBytes(r.original_id) + textBytes(r.event) +
    textBytes(r.visitor) + textBytes(r.page_id) + textBytes(r.session_id) + textBytes(r.path) + textBytes(r.query) + textBytes(r.referrer) +
    textBytes(r.referrer_host) + textBytes(r.utm_source) + textBytes(r.utm_medium) + textBytes(r.utm_campaign) + textBytes(r.utm_term) +
    textBytes(r.utm_content) + textBytes(r.source) + textBytes(r.country) + textBytes(r.browser) + textBytes(r.os) + textBytes(r.device) +
    textBytes(r.language) + textBytes(r.metadata) + textBytes(r.source_id)
  );
}

/** The identity every adapter de-duplicates on: a redelivered row carries the same site, registration, id and ts. */
export function eventKey(row: Pick<EventRow, 'site' | 'registration' | 'id' | 'ts'>): string {
  return `${row.site}\u0000${row.registration}\u0000${row.id}\u0000${row.ts}`;
}

/** The batch with later copies of an already-seen (site, registration, id, ts) removed, first occurrence kept. */
export function uniqueEvents(rows: readonly EventRow[]): EventRow[] {
  const seen = new RowKeyMap<EventRow, true>((r) => r.id, (a, b) => a.site === b.site && a.registration === b.registration && a.ts === b.ts, eventKey);
  const out: EventRow[] = [];
  for (const row of rows) {
    if (seen.get(row)) continue;
    seen.set(row, true);
    out.push(row);
  }
  return out;
}
