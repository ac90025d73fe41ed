import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeldRowsJournal } from '#adapters/receipt-journal/held-rows-journal.ts';
import { ReceiptJournal } from '#adapters/receipt-journal/receipt-journal.ts';
import { eventRowCodec } from '#adapters/receipt-journal/event-row-codec.ts';
import { registrationOf } from '#domain/registration.ts';
import { newSiteRecord } from '#domain/site.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { SiteRecord } from '#ports/registry.ts';
import { eventRow } from '../contract/event-store.contract.ts';
import { log } from '#platform/log.ts';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'tt-held-')), 'held');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const pending = newSiteRecord('going-live.example', 'web', 'owner-1', new Date('2026-11-28T00:00:00Z'));
const verified: SiteRecord = { ...pending, verified_at: '2026-11-28T00:00:01Z' };
const row = (id: string): EventRow => eventRow({ id, site: pending.hostname, registration: registrationOf(pending) });

/** The journal over `dir`, sending to an array and counting drops. */
async function openHeld() {
  const { journal, recovered } = await ReceiptJournal.open<EventRow>(dir, { log, codec: eventRowCodec });
  const sent: EventRow[] = [];
  const dropped: EventRow[] = [];
  const held = new HeldRowsJournal({
    journal,
    queue: { send: async (r) => void sent.push(r), sendBatch: async (rs) => void sent.push(...rs) },
    dropped: (r) => dropped.push(r),
    failed: (e) => {
      throw e;
    },
  });
  return { journal, recovered, held, sent, dropped };
}

const settled = () => new Promise((r) => setTimeout(r, 10));

describe('held rows journal', () => {
  it('keeps a held row on disk until its check decides, then sends it on when the site was verified', async () => {
    const { journal, held, sent } = await openHeld();
    let decide!: (site: SiteRecord | null) => void;
    await held.hold(row('a'), new Promise((ok) => (decide = ok)));
    expect(journal.outstanding()).toBe(1);
    decide(verified);
    await settled();
    expect(sent.map((r) => r.id)).toEqual(['a']);
    expect(journal.outstanding()).toBe(0);
  });

  it('drops a held row when the check fails, or verifies a registration other than the one that collected it', async () => {
    const { journal, held, sent, dropped } = await openHeld();
    await held.hold(row('failed'), Promise.resolve(null));
    await held.hold(row('claimed'), Promise.resolve({ ...verified, owner_uid: 'someone-else' }));
    await settled();
    expect(sent).toEqual([]);
    expect(dropped.map((r) => r.id)).toEqual(['failed', 'claimed']);
    expect(journal.outstanding()).toBe(0);
  });

  it('decides the rows a killed run held by what the registry says at the next start', async () => {
    const first = await openHeld();
    // The run ends before either check does (as under kill -9: nothing released).
    await first.held.hold(row('kept'), new Promise(() => {}));
    await first.held.hold(row('also-kept'), new Promise(() => {}));
    await first.journal.close();

    const second = await openHeld();
    expect(second.recovered.flatMap((s) => s.messages).map((r) => r.id)).toHaveLength(2);
    const stored = await second.held.recover(second.recovered, { getSite: async () => verified });
    expect(stored).toBe(2);
    expect(second.sent.map((r) => r.id)).toEqual(['kept', 'also-kept']);
    expect(second.journal.outstanding()).toBe(0);
    await second.journal.close();

    const third = await openHeld();
    expect(third.recovered).toEqual([]);
  });

  it('drops recovered rows of a site that is still unverified or gone', async () => {
    const first = await openHeld();
    await first.held.hold(row('pending'), new Promise(() => {}));
    await first.journal.close();
    const second = await openHeld();
    expect(await second.held.recover(second.recovered, { getSite: async () => pending })).toBe(0);
    expect(second.dropped.map((r) => r.id)).toEqual(['pending']);
    expect(second.journal.outstanding()).toBe(0);
  });
});
