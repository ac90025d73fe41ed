import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addDays, daysBetween, formatDate, parseDate } from '#domain/imports/dates.ts';
import { chunkAt, monthSlices, planChunks, unfinishedChunks } from '#domain/imports/planner.ts';

describe('planChunks', () => {
  it('splits an inclusive range into calendar months, first and last partial, pageviews then events', () => {
    expect(planChunks('2025-01-15', '2025-03-10')).toEqual([
      { index: 0, type: 'pageviews', start: '2025-01-15', end: '2025-01-31' },
      { index: 1, type: 'events', start: '2025-01-15', end: '2025-01-31' },
      { index: 2, type: 'pageviews', start: '2025-02-01', end: '2025-02-28' },
      { index: 3, type: 'events', start: '2025-02-01', end: '2025-02-28' },
      { index: 4, type: 'pageviews', start: '2025-03-01', end: '2025-03-10' },
      { index: 5, type: 'events', start: '2025-03-01', end: '2025-03-10' },
    ]);
  });

  it('plans one day as one month', () => {
    expect(monthSlices('2024-02-29', '2024-02-29')).toEqual([{ start: '2024-02-29', end: '2024-02-29' }]);
  });

  it('plans 14 months for a 400-day range that touches 14 calendar months', () => {
    const slices = monthSlices('2025-01-20', '2026-02-23');
    expect(daysBetween('2025-01-20', '2026-02-23') + 1).toBeLessThanOrEqual(400);
    expect(slices).toHaveLength(14);
    expect(planChunks('2025-01-20', '2026-02-23')).toHaveLength(28);
  });

  it('covers every day of any range exactly once, in order, never across a month', () => {
    const day = fc.integer({ min: 0, max: 3000 }).map((n) => formatDate(Date.UTC(2020, 0, 1) + n * 86_400_000));
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 400 }), (start, length) => {
        const end = addDays(start, length);
        const slices = monthSlices(start, end);
        expect(slices[0]?.start).toBe(start);
        expect(slices.at(-1)?.end).toBe(end);
        let days = 0;
        for (const [i, s] of slices.entries()) {
          expect(s.start.slice(0, 7)).toBe(s.end.slice(0, 7));
          if (i > 0) expect(s.start).toBe(addDays(slices[i - 1]!.end, 1));
          days += daysBetween(s.start, s.end) + 1;
        }
        expect(days).toBe(length + 1);
      }),
    );
  });

  it('names a chunk by its index alone', () => {
    expect(chunkAt('2025-01-15', '2025-03-10', 3)).toEqual({ index: 3, type: 'events', start: '2025-02-01', end: '2025-02-28' });
    expect(chunkAt('2025-01-15', '2025-03-10', 6)).toBeNull();
  });

  it('lists what a retry queues again', () => {
    expect(unfinishedChunks(6, [0, 1, 4])).toEqual([2, 3, 5]);
    expect(unfinishedChunks(2, [0, 1])).toEqual([]);
  });
});

describe('dates', () => {
  it('parses only real YYYY-MM-DD days', () => {
    expect(parseDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDate('2025-02-29')).toBeNull();
    expect(parseDate('2025-1-01')).toBeNull();
    expect(parseDate(null)).toBeNull();
  });
});
