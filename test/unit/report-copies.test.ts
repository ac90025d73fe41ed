import { describe, expect, it } from 'vitest';
import { copyFlags } from '#domain/rows/copies.ts';

const H = 3_600_000;
const r = (id: string, ts: number, over: Partial<{ site: string; registration: string; kind: 'pageview' | 'event' | 'append' }> = {}) => ({
  site: 's', registration: 'reg', kind: 'pageview' as const, id, ts, ...over,
});

describe('copies (which rows reports count)', () => {
  it('calls a row a copy when its id has a row at most a day before it, the window chaining from row to row', () => {
    const rows = [r('a', 0), r('a', 2 * H), r('a', 24 * H), r('a', 47 * H), r('a', 72 * H), r('b', H)];
    // 24 h after the row before: a copy (inclusive); 47 h is 23 h after 24 h; 72 h is 25 h after 47 h.
    expect(copyFlags(rows)).toEqual([false, true, true, true, false, false]);
  });

  it('takes rows in time order whatever order they are listed in', () => {
    expect(copyFlags([r('a', 5 * H), r('a', 0), r('a', 30 * H)])).toEqual([true, false, false]);
  });

  it('keeps sites, registrations and kinds apart', () => {
    const rows = [r('a', 0), r('a', H, { site: 't' }), r('a', H, { registration: 'other' }), r('a', H, { kind: 'event' }), r('a', H)];
    expect(copyFlags(rows)).toEqual([false, false, false, false, true]);
  });
});

