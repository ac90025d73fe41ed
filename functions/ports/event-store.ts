/**
 * Port: the event store (DuckDB or ClickHouse; Timestream on AWS accounts
 * that still have it): where the writer appends rows (domain/rows/event-row.ts).
 */
import type { EventRow } from '#domain/rows/event-row.ts';

export interface EventStore {
  /**
   * Appends rows. Idempotent: a row whose (site, registration, id, ts) is
   * already stored is skipped, so a redelivered batch adds nothing.
   */
  saveEvents(rows: readonly EventRow[]): Promise<void>;
  close(): Promise<void>;
}
