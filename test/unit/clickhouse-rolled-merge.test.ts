import { describe, expect, it } from 'vitest';
import { engagementOfParts, medianOfCounts, sumRows } from '#reports/sql/rolled-merge.ts';

/** The median as DuckDB and ClickHouse's quantileExactInclusive(0.5) take it over the values themselves. */
const medianOf = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const h = 0.5 * (s.length - 1);
  const k = Math.floor(h);
  return k + 1 >= s.length ? s[s.length - 1] : s[k]! + (h - k) * (s[k + 1]! - s[k]!);
};
const counted = (values: number[]) => values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<number, number>());

describe('a rolled read\'s parts put together (ClickHouse)', () => {
  it('takes the median of counted totals as of the totals themselves: the middle one, or halfway between the middle two', () => {
    expect(medianOfCounts(new Map())).toBeNull();
    expect(medianOfCounts(counted([5, 9, 12]))).toBe(9);
    expect(medianOfCounts(counted([5, 8]))).toBe(6.5);
    expect(medianOfCounts(counted([5, 7, 7, 10]))).toBe(7);
    expect(medianOfCounts(counted([6, 6, 6]))).toBe(6);
    for (const values of [[5.1, 5.3, 7.7, 100.25, 5.1], [9, 9, 11, 12, 13, 13], [1e6, 5, 5.5]]) expect(medianOfCounts(counted(values))).toBe(medianOf(values));
  });

  it('adds up the parts per key, keeps the greatest of a max column, and lets a NULL max lose', () => {
    const rows = sumRows(
      [
        { list: 0, name: 'Chrome', value: '3', visitors: 2, last_seen: null },
        { list: 1, name: 'Chrome', value: 1, visitors: 1, last_seen: 5 },
        { list: 0, name: 'Chrome', value: 4, visitors: '4', last_seen: 9 },
        { list: 1, name: 'Chrome', value: 2, visitors: 2, last_seen: null },
      ],
      ['list', 'name'],
      ['value', 'visitors'],
      ['last_seen'],
    );
    expect(rows).toEqual([
      { list: 0, name: 'Chrome', value: 7, visitors: 6, last_seen: 9 },
      { list: 1, name: 'Chrome', value: 3, visitors: 3, last_seen: 5 },
    ]);
  });

  it('gives each bucket and the whole range the median and mean scroll over every part', () => {
    const rows = engagementOfParts([
      { site: 's', bucket: 0, totals: [[5, '2'], [9, 1]], scrolls: 150, scrolled: 3 },
      { site: 's', bucket: 1, totals: [[20, 1]], scrolls: 0, scrolled: 0 },
      { site: 's', bucket: 0, totals: [[6, 1]], scrolls: 50, scrolled: '1' },
    ]);
    const of = (bucket: number | null) => rows.find((r) => r.bucket === bucket);
    expect(of(0)).toEqual({ site: 's', bucket: 0, duration: medianOf([5, 5, 9, 6]), scrolled: 50 });
    expect(of(1)).toEqual({ site: 's', bucket: 1, duration: 20, scrolled: null });
    expect(of(null)).toEqual({ site: 's', bucket: null, duration: medianOf([5, 5, 9, 6, 20]), scrolled: 50 });
    expect(rows).toHaveLength(3);
  });
});
