/**
 * Compaction of the S3 store (issue 44) over s3rver and dynalite: a site-day's files become one,
 * and its reports and rows stay what they were when a run dies after any of its steps (the
 * merged file put, the manifest swapped, the retired files deleted), when a run follows it, and
 * when two instances compact at once; replaced files are deleted only after the grace period.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETIRED_GRACE_MS, type CompactionStep } from '#adapters/s3-events/compactor.ts';
import type { S3Events } from '#adapters/s3-events/s3-events.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { eventRow } from './event-store.contract.ts';
import { startLocalS3, type LocalS3 } from '../support/s3-events.ts';

const DAY = Math.floor(Date.UTC(2026, 1, 10) / DAY_MS);
const T = DAY * DAY_MS;
const H = 3_600_000;

let local: LocalS3;
let sites = 0;
beforeAll(async () => {
  local = await startLocalS3();
});
afterAll(() => local.close());

/** Three batches of one site-day: pages, a copy of one of them, an append, and a row stored twice over. */
function batches(site: string): EventRow[][] {
  const ref = { site, registration: 'reg-1' };
  const page = (id: string, ts: number, visitor: string) => eventRow({ ...ref, id, ts, visitor, path: `/${id}` });
  const shared = page('p-shared', T + 5 * H, 'v2');
  return [
    [page('p1', T + H, 'v1'), page('p2', T + 2 * H, 'v1'), shared],
    [page('p1', T + 3 * H, 'v1'), eventRow({ ...ref, kind: 'append', id: 'a1', original_id: 'p2', ts: T + 4 * H, duration: 30, scrolled: 50 }), shared],
    [page('p3', T + 6 * H, 'v3'), eventRow({ ...ref, kind: 'event', event: 'signup', id: 'e1', ts: T + 7 * H, visitor: 'v3' })],
  ];
}

/** What a reader sees of the site's day: its rows (each once), and reports over them. */
async function seen(events: S3Events, site: string) {
  const reports = await events.reports();
  const mirror = await events.mirror();
  const scope = { site, registration: 'reg-1', from: T, to: T + DAY_MS, filters: [] };
  const rows = await mirror.over([scope], T, T + DAY_MS, () => mirror.query<{ id: string; ts: bigint }>('SELECT id, ts FROM events WHERE site = $site ORDER BY ts, id', { site }));
  return {
    rows: rows.map((r) => `${r.id}@${Number(r.ts) - T}`),
    pages: await reports.breakdown(scope, 'pages', 10),
    engagement: await reports.engagement(scope, [10], [50]),
    events: await reports.eventTotals(scope),
  };
}

const objectsOf = async (site: string) =>
  ((await local.s3.send(new ListObjectsV2Command({ Bucket: local.bucket, Prefix: `events/reg-1/${site}/${DAY}/` }))).Contents ?? []).map((o) => o.Key);

/** A store whose compactions die after `crashAt` while `crash.on`, with a clock the test moves. */
async function storeWithCrash(crashAt: CompactionStep | null) {
  const clock = { now: Date.UTC(2026, 1, 12) };
  const crash = { on: true };
  const events = await local.open({
    compaction: {
      now: () => clock.now,
      after: (step) => {
        if (crash.on && step === crashAt) throw new Error(`crash after ${step}`);
      },
    },
  });
  const site = `compact-${++sites}.example`;
  for (const batch of batches(site)) await (await events.writer()).saveEvents(batch);
  return { events, site, clock, crash };
}

describe('S3 store compaction', () => {
  for (const step of ['merged', 'swapped', 'deleted'] as const) {
    it(`loses and doubles no row when a run dies after the step "${step}", and the next runs finish the work`, async () => {
      const { events, site, clock, crash } = await storeWithCrash(step);
      const before = await seen(events, site);
      expect(before.rows).toHaveLength(7);
      expect((await events.manifest.get({ site, registration: 'reg-1' }, DAY)).files).toHaveLength(3);
      if (step === 'deleted') {
        await events.compact();
        clock.now += RETIRED_GRACE_MS;
      }
      await expect(events.compact()).rejects.toThrow(`crash after ${step}`);
      expect(await seen(events, site)).toEqual(before);
      crash.on = false;
      await events.compact();
      expect(await seen(events, site)).toEqual(before);
      clock.now += RETIRED_GRACE_MS;
      await events.compact();
      const day = await events.manifest.get({ site, registration: 'reg-1' }, DAY);
      expect([day.files.length, day.retired.length]).toEqual([1, 0]);
      expect(await objectsOf(site)).toEqual([`events/reg-1/${site}/${DAY}/${day.files[0]?.name}`]);
      expect(await seen(events, site)).toEqual(before);
    });
  }

  it('keeps replaced files until the grace period has passed, for reads that listed them', async () => {
    const { events, site, clock } = await storeWithCrash(null);
    await events.compact();
    expect(await objectsOf(site)).toHaveLength(4);
    clock.now += RETIRED_GRACE_MS - 1;
    await events.compact();
    expect(await objectsOf(site)).toHaveLength(4);
    clock.now += 1;
    await events.compact();
    expect(await objectsOf(site)).toHaveLength(1);
  });

  it('loses and doubles no row when two instances compact at once, nor a batch stored meanwhile', async () => {
    const { events, site } = await storeWithCrash(null);
    const before = await seen(events, site);
    const other = await local.open({ table: events.manifest.table });
    const late = eventRow({ site, registration: 'reg-1', id: 'late', ts: T + 8 * H, visitor: 'v4', path: '/late' });
    await Promise.all([events.compact(), other.compact(), (await other.writer()).saveEvents([late])]);
    await events.compact();
    const after = await seen(events, site);
    expect(after.rows).toEqual([...before.rows, `late@${8 * H}`]);
    expect((await events.manifest.get({ site, registration: 'reg-1' }, DAY)).files).toHaveLength(1);
  });
});
