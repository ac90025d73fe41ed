/**
 * Which stored units answer an API read: whole UTC hours (unfiltered) or
 * whole UTC days (one filter clause, or a breakdown) come from the rollups,
 * the rest of the range from rows, and each part belongs to one group of the
 * answer (a series bucket, or the whole range). A plan is a few spans, at
 * most three per group, whatever the range: what the statements are handed
 * stays small (ClickHouse bounds a query's size).
 */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export type RollupUnit = 'hour' | 'day';

/** [start, end) in Unix ms, in group `group`. */
export interface Span {
  start: number;
  end: number;
  group: number;
}

export interface ReadPlan {
  /** The range read, [from, to). */
  from: number;
  to: number;
  /** The rollup read for the covered spans, or none (rows only). */
  rollup: RollupUnit | null;
  /** Whole rollup units, each span inside one group; ascending. */
  covered: Span[];
  /** Everything else of the range, read from rows; ascending. */
  rows: Span[];
}

/**
 * The plan for groups given by `boundaries` b0 < … < bn (group i is [b_i, b_{i+1}); the range is
 * [b0, bn)), reading `rollup` units where whole ones fit inside a group.
 */
export function planRead(boundaries: readonly number[], rollup: RollupUnit | null): ReadPlan {
  const from = boundaries[0] as number;
  const to = boundaries[boundaries.length - 1] as number;
  const plan: ReadPlan = { from, to, rollup, covered: [], rows: [] };
  const unit = rollup === 'hour' ? HOUR_MS : DAY_MS;
  for (let group = 0; group + 1 < boundaries.length; group++) {
    const start = boundaries[group] as number;
    const end = boundaries[group + 1] as number;
    const coveredStart = Math.ceil(start / unit) * unit;
    const coveredEnd = Math.floor(end / unit) * unit;
    if (!rollup || coveredStart >= coveredEnd) {
      plan.rows.push({ start, end, group });
      continue;
    }
    if (start < coveredStart) plan.rows.push({ start, end: coveredStart, group });
    plan.covered.push({ start: coveredStart, end: coveredEnd, group });
    if (coveredEnd < end) plan.rows.push({ start: coveredEnd, end, group });
  }
  return plan;
}
