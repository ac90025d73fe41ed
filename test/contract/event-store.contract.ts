/**
 * The saveEvents contract every EventStore adapter passes (DuckDB always,
 * Timestream when credentials exist): rows land, and redeliveries or
 * duplicates never add a row. Each test writes to its own site, so a shared
 * real table needs no cleanup between tests.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';

export interface EventStoreHarness {
  store: EventStore;
  /** Rows stored for `site` (each stored row once, whatever its kind). */
  countRows(site: string): Promise<number>;
  close(): Promise<void>;
}

/** A pageview with every optional field empty; tests set what they need. */
export function eventRow(overrides: Partial<EventRow> = {}): EventRow {
  return {
    site: 'contract.example',
    registration: 'reg-contract',
    // Recent, so that Timestream's memory store accepts it.
    ts: Date.now() - 60_000,
    kind: 'pageview',
    id: randomUUID(),
    original_id: null,
    event: null,
    visitor: null,
    unique: null,
    page_id: null,
    session_id: null,
    path: null,
    query: null,
    referrer: null,
    referrer_host: null,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
    source: null,
    country: null,
    browser: null,
    os: null,
    device: null,
    language: null,
    viewport_width: null,
    viewport_height: null,
    screen_width: null,
    screen_height: null,
    duration: null,
    scrolled: null,
    bot: false,
    metadata: null,
    https: null,
    imported: false,
    source_id: null,
    ...overrides,
  };
}

/** A fully populated row, long text included. */
export function fullEventRow(overrides: Partial<EventRow> = {}): EventRow {
  return eventRow({
    kind: 'event',
    original_id: randomUUID(),
    event: 'signup_clicked',
    visitor: 'a'.repeat(64),
    unique: true,
    page_id: randomUUID(),
    session_id: randomUUID(),
    path: `/blog/${'x'.repeat(300)}`,
    query: '?q=ünïcödé&x=1',
    referrer: 'https://news.example/item?id=1',
    referrer_host: 'news.example',
    utm_source: 'newsletter',
    utm_medium: 'email',
    utm_campaign: 'spring',
    utm_term: 'analytics',
    utm_content: 'button',
    source: 'newsletter',
    country: 'DE',
    browser: 'Firefox',
    os: 'Linux',
    device: 'desktop',
    language: 'de-DE',
    viewport_width: 1280,
    viewport_height: 720,
    screen_width: 1920,
    screen_height: 1080,
    duration: 12.5,
    scrolled: 75,
    bot: false,
    metadata: JSON.stringify({ plan: 'pro', seats: 3 }),
    https: true,
    imported: false,
    source_id: null,
    ...overrides,
  });
}

const newSite = () => `c-${randomUUID().slice(0, 8)}.example`;
const rowsFor = (site: string, n: number, base = Date.now() - 120_000) =>
  Array.from({ length: n }, (_, i) => eventRow({ site, ts: base + i, path: `/p/${i}` }));

export function eventStoreContract(name: string, open: () => Promise<EventStoreHarness>): void {
  describe(`EventStore contract: ${name}`, () => {
    let h: EventStoreHarness;
    beforeAll(async () => {
      h = await open();
    });
    afterAll(async () => {
      await h?.close();
    });

    it('stores every row of a batch', async () => {
      const site = newSite();
      await h.store.saveEvents(rowsFor(site, 250));
      expect(await h.countRows(site)).toBe(250);
    });

    it('adds nothing when a batch is delivered again', async () => {
      const site = newSite();
      const batch = rowsFor(site, 40);
      await h.store.saveEvents(batch);
      await h.store.saveEvents(batch);
      await h.store.saveEvents(batch.map((row) => ({ ...row })));
      expect(await h.countRows(site)).toBe(40);
    });

    it('stores duplicates inside one batch once', async () => {
      const site = newSite();
      const row = eventRow({ site });
      await h.store.saveEvents([row, { ...row }, row, eventRow({ site })]);
      expect(await h.countRows(site)).toBe(2);
    });

    it('stores only the new rows of a batch that overlaps stored ones', async () => {
      const site = newSite();
      const first = rowsFor(site, 10);
      await h.store.saveEvents(first);
      await h.store.saveEvents([...first.slice(5), ...rowsFor(site, 7, Date.now() - 30_000)]);
      expect(await h.countRows(site)).toBe(17);
    });

    it('treats the same id at a different ts as a different row', async () => {
      const site = newSite();
      const row = eventRow({ site });
      await h.store.saveEvents([row]);
      await h.store.saveEvents([{ ...row, ts: row.ts + 1 }]);
      expect(await h.countRows(site)).toBe(2);
    });

    it('treats the same id and ts on another site as a different row', async () => {
      const [a, b] = [newSite(), newSite()];
      const row = eventRow({ site: a });
      await h.store.saveEvents([row, { ...row, site: b }]);
      expect(await h.countRows(a)).toBe(1);
      expect(await h.countRows(b)).toBe(1);
    });

    it('treats the same id and ts of another registration of the site as a different row, and redeliveries of each as nothing new', async () => {
      const site = newSite();
      const row = eventRow({ site, registration: 'reg-first-owner' });
      const other = { ...row, registration: 'reg-next-owner' };
      await h.store.saveEvents([row, other]);
      await h.store.saveEvents([other, row]);
      expect(await h.countRows(site)).toBe(2);
    });

    it('stores rows with every field set and rows with every optional field empty', async () => {
      const site = newSite();
      await h.store.saveEvents([fullEventRow({ site }), eventRow({ site }), eventRow({ site, kind: 'append', original_id: randomUUID() })]);
      expect(await h.countRows(site)).toBe(3);
    });

    it('does nothing for an empty batch', async () => {
      await expect(h.store.saveEvents([])).resolves.toBeUndefined();
    });

    it('stores each row once when overlapping batches are saved concurrently', async () => {
      const site = newSite();
      const rows = rowsFor(site, 60);
      await Promise.all([h.store.saveEvents(rows.slice(0, 40)), h.store.saveEvents(rows.slice(20)), h.store.saveEvents(rows)]);
      expect(await h.countRows(site)).toBe(60);
    });
  });
}
