/**
 * A site's removal on the S3 store (ports/site-data.ts, issue 44): each listed day of the range
 * leaves the manifest (a conditional write, so a file a writer lists meanwhile goes with it or
 * after it, never half), then its objects are deleted; readers reload the days from the manifest,
 * so reports equal those of a store that never held the rows. The other series live beside the
 * events (`side`: the local DuckDB file for `npm start`; none on AWS, where they answer 501 as on
 * Timestream), and are removed there.
 */
import { assertWholeDays, removeEverySeries } from '#reports/sql/site-data.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { NOTHING_REMOVED, type RemovedRows, type SiteDataStore } from '#ports/site-data.ts';
import { objectKey, type Manifest } from './manifest.ts';
import type { EventMirror } from './mirror.ts';
import { deleteObjects, type EventBucket } from './s3-event-store.ts';

export class S3SiteData implements SiteDataStore {
  constructor(
    private readonly bucket: EventBucket,
    private readonly manifest: Manifest,
    private readonly mirror: EventMirror,
    private readonly side: SiteDataStore | null = null,
  ) {}

  async removeSiteData(ref: SiteRef, from: number, to: number): Promise<RemovedRows> {
    assertWholeDays(from, to);
    const sideRemoved = this.side ? await this.side.removeSiteData(ref, from, to) : NOTHING_REMOVED;
    return removeEverySeries(
      () => this.removeEvents(ref, from, to),
      async (series) => sideRemoved[series],
    );
  }

  /** Removes the event rows of [from, to) and returns how many there were. */
  private async removeEvents(ref: SiteRef, from: number, to: number): Promise<number> {
    const removed = await this.countRows(ref, from, to);
    for (const listed of await this.manifest.list(ref, from / DAY_MS, to / DAY_MS - 1)) {
      let gone: string[] = [];
      await this.manifest.change(ref, listed.day, (current) => {
        gone = [...current.files, ...current.retired].map((f) => objectKey(ref, listed.day, f.name));
        return { files: [], retired: [] };
      });
      await deleteObjects(this.bucket, gone);
    }
    return removed;
  }

  private async countRows(ref: SiteRef, from: number, to: number): Promise<number> {
    const [row] = await this.mirror.over([ref], from, to, () =>
      this.mirror.query<{ n: bigint }>('SELECT count(*) AS n FROM events WHERE site = $site AND registration = $registration AND ts >= $from AND ts < $to', { ...ref, from, to }),
    );
    return Number(row?.n ?? 0);
  }

  async storedSites(): Promise<SiteRef[]> {
    const all = new Map<string, SiteRef>();
    for (const ref of [...(await this.manifest.sites()), ...((await this.side?.storedSites()) ?? [])]) all.set(`${ref.site}|${ref.registration}`, ref);
    return [...all.values()].sort((a, b) => (a.site === b.site ? (a.registration < b.registration ? -1 : 1) : a.site < b.site ? -1 : 1));
  }

  async oldestRow(ref: SiteRef): Promise<number | null> {
    const side = (await this.side?.oldestRow(ref)) ?? null;
    const day = await this.manifest.firstDay(ref);
    if (day === null) return side;
    const [row] = await this.mirror.over([ref], day * DAY_MS, (day + 1) * DAY_MS, () =>
      this.mirror.query<{ oldest: bigint | null }>('SELECT min(ts) AS oldest FROM events WHERE site = $site AND registration = $registration', { site: ref.site, registration: ref.registration }),
    );
    const events = row?.oldest == null ? null : Number(row.oldest);
    return events === null ? side : side === null ? events : Math.min(events, side);
  }
}
