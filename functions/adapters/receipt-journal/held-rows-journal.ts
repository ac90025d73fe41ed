/**
 * HeldRows on one machine: a row waiting for its site's check is in its own
 * receipt journal before its beacon is answered. When the check verifies the
 * site that collected it, the row goes to the event queue (journaled there)
 * and only then is released here; when it fails, the row is dropped as
 * `unverified`. A crash in between leaves the row here: the next start decides
 * it by what the registry says then.
 */
import { registrationOf } from '#domain/registration.ts';
import { isVerified } from '#domain/site.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { HeldRows } from '#ports/held-rows.ts';
import type { Queue } from '#ports/queue.ts';
import type { Registry, SiteRecord } from '#ports/registry.ts';
import type { ReceiptJournal, RecoveredSegment } from './receipt-journal.ts';

export interface HeldRowsOptions {
  journal: ReceiptJournal<EventRow>;
  queue: Queue<EventRow>;
  /** A held row the check did not verify (or whose registration changed meanwhile): counted as `unverified`. */
  dropped(row: EventRow): void;
  /** Sending to the queue failed: the row stays journaled, for the next start. */
  failed(error: Error): void;
}

/** Whether `row` is to be stored now that its site reads `site`. */
const storable = (row: EventRow, site: SiteRecord | null): boolean => site !== null && isVerified(site) && registrationOf(site) === row.registration;

export class HeldRowsJournal implements HeldRows {
  constructor(private readonly options: HeldRowsOptions) {}

  async hold(row: EventRow, decision: Promise<SiteRecord | null>): Promise<void> {
    const segment = await this.options.journal.append([row]);
    void decision
      .then((site) => this.decide([row], () => site))
      .then(
        () => this.options.journal.release(segment),
        (e: unknown) => this.options.failed(e as Error),
      );
  }

  /** Rows an earlier run held and never decided, decided by the registry now; resolves with the number sent on. */
  async recover(recovered: readonly RecoveredSegment<EventRow>[], registry: Pick<Registry, 'getSite'>): Promise<number> {
    const sites = new Map<string, SiteRecord | null>();
    let stored = 0;
    for (const { segment, messages } of recovered) {
      for (const row of messages) if (!sites.has(row.site)) sites.set(row.site, await registry.getSite(row.site));
      stored += await this.decide(messages, (row) => sites.get(row.site) ?? null);
      this.options.journal.release(segment, messages.length);
    }
    return stored;
  }

  /** Sends on the rows their site's record lets through, counts the others; resolves with the number sent. */
  private async decide(rows: readonly EventRow[], siteOf: (row: EventRow) => SiteRecord | null): Promise<number> {
    const kept: EventRow[] = [];
    const refused: EventRow[] = [];
    for (const row of rows) (storable(row, siteOf(row)) ? kept : refused).push(row);
    if (kept.length > 0) await this.options.queue.sendBatch(kept);
    for (const row of refused) this.options.dropped(row);
    return kept.length;
  }
}
