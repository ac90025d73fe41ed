import { describe, expect, it } from 'vitest';
import { staleBuilds, type RolledDays } from '#reports/sql/dialects/clickhouse-rollups.ts';

const days = (over: Partial<RolledDays>): RolledDays => ({ first: 10, last: 13, built: [], builtAt: [], plain: [], plainAt: [], variant: '', ...over });

describe('named builds a stale mark is as new as (ClickHouse rolled reads)', () => {
  it('counts a build whose day has a mark at or after its stamp, and with nextDay one whose next day has', () => {
    const named = days({ built: [10, 11, 12], builtAt: [100, 100, 100] });
    expect(staleBuilds(named, new Map([[10, 99]]), false)).toBe(0);
    expect(staleBuilds(named, new Map([[10, 100]]), false)).toBe(1);
    expect(staleBuilds(named, new Map([[13, 150]]), false)).toBe(0);
    expect(staleBuilds(named, new Map([[13, 150]]), true)).toBe(1);
  });

  it("counts the site's own build a plain read of a variant's day names, though the variant's build is newer than the mark", () => {
    const named = days({ built: [11], builtAt: [300], plain: [11], plainAt: [100], variant: 'country:DE' });
    expect(staleBuilds(named, new Map([[11, 200]]), false)).toBe(1);
    expect(staleBuilds(named, new Map([[11, 50]]), false)).toBe(0);
  });
});
