/** Retention settings, the purge's cutoff and the erasure's days (functions/domain/data-retention/retention.ts). */
import { describe, expect, it } from 'vitest';
import { ERASURE_RANGE_ERRORS, parseErasureRange, parseRetentionMonths, retentionCutoff, retentionOf } from '#domain/data-retention/retention.ts';

const D = 86_400_000;

describe('retention months', () => {
  it('takes whole months from 1 to the maximum', () => {
    expect([1, 25].map((m) => parseRetentionMonths(m, 25))).toEqual([1, 25]);
    expect([0, 26, 2.5, '12', null, -1].map((m) => parseRetentionMonths(m, 25))).toEqual([null, null, null, null, null, null]);
    expect(parseRetentionMonths(36, 36)).toBe(36);
  });

  it('defaults to 25 and never keeps more than the maximum', () => {
    expect(retentionOf({ retention_months: null }, 25)).toBe(25);
    expect(retentionOf({ retention_months: 36 }, 25)).toBe(25);
    expect(retentionOf({ retention_months: 6 }, 25)).toBe(6);
  });
});

describe('the purge cutoff', () => {
  it('is 00:00 UTC of the day after today less the months, whatever the hour', () => {
    expect(retentionCutoff(new Date('2026-11-29T00:00:00Z'), 25)).toBe(Date.UTC(2024, 9, 30));
    expect(retentionCutoff(new Date('2026-11-29T23:59:59Z'), 25)).toBe(Date.UTC(2024, 9, 30));
    expect(retentionCutoff(new Date('2026-01-15T08:00:00Z'), 1)).toBe(Date.UTC(2025, 11, 16));
  });

  it('clamps the day to a shorter month', () => {
    expect(retentionCutoff(new Date('2026-05-31T00:30:00Z'), 3)).toBe(Date.UTC(2026, 2, 1));
    expect(retentionCutoff(new Date('2024-03-31T00:30:00Z'), 1)).toBe(Date.UTC(2024, 2, 1));
  });
});

describe('the erasure range', () => {
  it('takes two days, both included, as [from, to) in ms', () => {
    expect(parseErasureRange('2026-03-10', '2026-03-11')).toEqual({ ok: true, from: Date.UTC(2026, 2, 10), to: Date.UTC(2026, 2, 12) });
    expect(parseErasureRange('2026-03-10', '2026-03-10')).toEqual({ ok: true, from: Date.UTC(2026, 2, 10), to: Date.UTC(2026, 2, 10) + D });
  });

  it('refuses missing, malformed and reversed days', () => {
    const [invalid, reversed] = ERASURE_RANGE_ERRORS;
    for (const [from, to] of [[undefined, '2026-03-10'], ['2026-02-30', '2026-03-10'], ['1773100800', '2026-03-10'], ['2026-3-1', '2026-03-10']]) {
      expect(parseErasureRange(from, to)).toEqual({ ok: false, error: invalid });
    }
    expect(parseErasureRange('2026-03-11', '2026-03-10')).toEqual({ ok: false, error: reversed });
  });
});
