/**
 * Port: rows of beacons that arrived while their site's first verification ran
 * longer than a beacon waits for it. They are answered 200, so they are kept
 * durably (locally a journal) and decided when the check ends: stored when it
 * verified the site that collected them, dropped as `unverified` otherwise.
 */
import type { EventRow } from '#domain/rows/event-row.ts';
import type { SiteRecord } from './registry.ts';

export interface HeldRows {
  /** Resolves once the row is kept durably; `decision` gives the site as the check left it (null: the check failed). */
  hold(row: EventRow, decision: Promise<SiteRecord | null>): Promise<void>;
}
