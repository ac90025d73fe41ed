/**
 * Port: which source ids a site has imported already (spec part 4: repeated
 * stable source ids are skipped across jobs). Backed by the event store
 * itself, whose imported rows carry `source_id` and an id naming the job
 * that stored them (functions/domain/imports/export-row.ts), so the ledger
 * can never disagree with the stored rows and needs no second write.
 */
import type { EventKind } from '#domain/rows/event-row.ts';
import type { SiteRef } from './report-store.ts';

/** What an import stores: a pageviews export's rows are pageviews, an events export's events. */
export type ImportedKind = Extract<EventKind, 'pageview' | 'event'>;

export interface ImportLedger {
  /**
   * The site is named by its hostname and registration: another account's
   * earlier import of the same source data does not count as imported here.
   * For those of `sourceIds` already stored for `site`: source id → the id of
   * the stored row. A source id's row always has the same timestamp and
   * kind, so the search is bounded to [fromMs, toMs] (inclusive), the
   * batch's own span, and to rows of `kind` (the pageviews and events of one
   * month are separate exports, imported side by side).
   */
  findImported(site: SiteRef, kind: ImportedKind, sourceIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, string>>;
  /** Whether any imported row of `site` and `kind` lies in [fromMs, toMs] (inclusive): when none does, a batch there needs no lookup. */
  hasImported(site: SiteRef, kind: ImportedKind, fromMs: number, toMs: number): Promise<boolean>;
}
