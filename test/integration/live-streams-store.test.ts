/**
 * The live stream's registry items over a real dynalite
 * (functions/adapters/dynamodb/live-streams.ts): a ticket is taken once and
 * never after it expired; an account's slots are held one stream each, an
 * expired hold is free for the next, a renewal or release by a stream that no
 * longer holds the slot changes nothing, and accounts do not share slots.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoLiveStreams } from '#adapters/dynamodb/live-streams.ts';
import { itemTable } from '#adapters/dynamodb/item-table.ts';
import { loadConfig } from '#platform/config.ts';
import { startLocalStore, type LocalStore } from '#local/adapters.ts';

let dir: string;
let store: LocalStore;
let live: DynamoLiveStreams;
let n = 0;
const uid = () => `live-store-${++n}`;
const NOW = 1_800_000_000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tt-live-streams-'));
  const config = loadConfig({ DATA_DIR: dir });
  store = await startLocalStore(config);
  live = new DynamoLiveStreams(itemTable(store.client, config.tableName));
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tickets', () => {
  it('are taken once, with who and which site they let in', async () => {
    await live.putTicket('hash-once', { uid: 'u', hostname: 'a.example' }, NOW + 60);
    expect(await live.takeTicket('hash-once', NOW)).toEqual({ uid: 'u', hostname: 'a.example' });
    expect(await live.takeTicket('hash-once', NOW)).toBeNull();
    expect(await live.takeTicket('never-issued', NOW)).toBeNull();
  });

  it('are refused once expired (before the table’s TTL removes them)', async () => {
    await live.putTicket('hash-late', { uid: 'u', hostname: 'a.example' }, NOW + 60);
    expect(await live.takeTicket('hash-late', NOW + 60)).toBeNull();
    expect(await live.takeTicket('hash-late', NOW + 59)).toEqual({ uid: 'u', hostname: 'a.example' });
  });
});

describe('slots', () => {
  it('give each stream its own slot until all are held, then none; a released one is taken again', async () => {
    const u = uid();
    const held = [];
    for (const stream of ['s1', 's2', 's3']) held.push(await live.claimSlot(u, stream, 3, NOW, NOW + 60));
    expect(held).toEqual([0, 1, 2]);
    expect(await live.claimSlot(u, 's4', 3, NOW, NOW + 60)).toBeNull();
    expect([await live.heldSlots(u, NOW), await live.heldSlots(u, NOW + 60)]).toEqual([3, 0]);
    // Another account has slots of its own.
    expect(await live.claimSlot(uid(), 's5', 3, NOW, NOW + 60)).toBe(0);
    await live.releaseSlot(u, 1, 's2');
    expect(await live.claimSlot(u, 's4', 3, NOW, NOW + 60)).toBe(1);
  });

  it('hand an expired hold to the next stream; the old stream can then neither renew nor release it', async () => {
    const u = uid();
    expect(await live.claimSlot(u, 'old', 1, NOW, NOW + 60)).toBe(0);
    expect(await live.claimSlot(u, 'new', 1, NOW + 59, NOW + 119)).toBeNull();
    expect(await live.claimSlot(u, 'new', 1, NOW + 60, NOW + 120)).toBe(0);
    expect(await live.renewSlot(u, 0, 'old', NOW + 200)).toBe(false);
    await live.releaseSlot(u, 0, 'old');
    expect(await live.claimSlot(u, 'third', 1, NOW + 61, NOW + 121)).toBeNull();
    expect(await live.renewSlot(u, 0, 'new', NOW + 200)).toBe(true);
    // Renewed: still held past its first lease.
    expect(await live.claimSlot(u, 'third', 1, NOW + 150, NOW + 210)).toBeNull();
  });
});
