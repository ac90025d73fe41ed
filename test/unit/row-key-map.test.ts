import { describe, expect, it } from 'vitest';
import { RowKeyMap } from '#domain/row-key-map.ts';

interface Row {
  site: string;
  id: string;
  ts: number;
}

const byIdentity = () => new RowKeyMap<Row, string>((r) => r.id, (a, b) => a.site === b.site && a.ts === b.ts, (r) => `${r.site}|${r.id}|${r.ts}`);

describe('RowKeyMap', () => {
  it('finds a value by the whole identity, not by the hashed field alone', () => {
    const map = byIdentity();
    map.set({ site: 'a', id: 'x', ts: 1 }, 'first');
    expect(map.get({ site: 'a', id: 'x', ts: 1 })).toBe('first');
    expect(map.get({ site: 'b', id: 'x', ts: 1 })).toBeUndefined();
    expect(map.get({ site: 'a', id: 'x', ts: 2 })).toBeUndefined();
    expect(map.get({ site: 'a', id: 'y', ts: 1 })).toBeUndefined();
  });

  it('keeps rows that share the field but not the identity apart, and replaces a value of the same identity', () => {
    const map = byIdentity();
    map.set({ site: 'a', id: 'x', ts: 1 }, 'a1');
    map.set({ site: 'b', id: 'x', ts: 1 }, 'b1');
    map.set({ site: 'a', id: 'x', ts: 2 }, 'a2');
    map.set({ site: 'b', id: 'x', ts: 1 }, 'b1 again');
    map.set({ site: 'a', id: 'x', ts: 1 }, 'a1 again');
    expect([
      map.get({ site: 'a', id: 'x', ts: 1 }),
      map.get({ site: 'b', id: 'x', ts: 1 }),
      map.get({ site: 'a', id: 'x', ts: 2 }),
      map.get({ site: 'b', id: 'x', ts: 2 }),
    ]).toEqual(['a1 again', 'b1 again', 'a2', undefined]);
  });
});
