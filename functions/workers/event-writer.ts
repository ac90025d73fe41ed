/** The queue consumer that appends collected rows to the event store. */
import type { EventRow, EventStore } from '#ports/event-store.ts';
import type { BatchConsumer } from '#ports/queue.ts';
import { log } from '#platform/log.ts';

export function createEventWriter(store: EventStore): BatchConsumer<EventRow> {
  return async (rows) => {
    try {
      await store.saveEvents(rows);
      return [];
    } catch (e) {
      log.error('event store write failed', { rows: rows.length, message: (e as Error).message });
      // The store is idempotent, so retrying the whole batch is safe.
      return rows.map((_, i) => i);
    }
  };
}
