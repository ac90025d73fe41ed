/**
 * The collector's drop counter as the service runs it (the IngestMetrics
 * port, which it times no step through): counts by reason, written as one `collector drops` log line every
 * 10 s and at shutdown, so a flood of resends or DNT beacons is not also a
 * flood of log writes; and, where the setup check shares the process, the
 * per-hostname tallies it shows (domain/recent-drops.ts) for drops of a read
 * payload.
 */
import type { DropReason } from '#domain/ingest/drop.ts';
import type { IngestMetrics } from '#ports/ingest-metrics.ts';
import type { DropCounts } from '#domain/recent-drops.ts';
import { log } from './log.ts';

export const DROP_LOG_INTERVAL_MS = 10_000;

export class DropLog implements IngestMetrics {
  private readonly counts = new Map<DropReason, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly recent: DropCounts | null) {}

  dropped(reason: DropReason, hostname: string | null): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    if (hostname !== null) this.recent?.record(hostname, reason);
    this.timer ??= setTimeout(() => this.flush(), DROP_LOG_INTERVAL_MS).unref();
  }

  /** Writes the counts since the last flush as one line: `{"msg":"collector drops","counts":{"dnt":3,…}}`. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.counts.size === 0) return;
    log.info('collector drops', { counts: Object.fromEntries(this.counts) });
    this.counts.clear();
  }
}
