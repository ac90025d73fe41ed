/**
 * Which stored units answer an API read: whole UTC hours (unfiltered) or
 * whole UTC days (one filter clause or a breakdown) come from the rollups,
 * everything else from rows, and each unit belongs to one group of the answer
 * (a series bucket, or the whole range). Rows are keyed by their hour, or by
 * their quarter hour inside an hour a bucket boundary cuts (timezones are
 * whole quarter hours off UTC), so one mapping of unit starts to groups
 * places rollups and rows alike.
 */
const QUARTER_MS = 15 * 60_000;
export const HOUR_MS = 4 * QUARTER_MS;
export const DAY_MS = 24 * HOUR_MS;

export type RollupUnit = 'hour' | 'day';

export interface ReadPlan {
  /** The range read, [from, to). */
  from: number;
  to: number;
  /** The rollup read for the covered units, or none (rows only). */
  rollup: RollupUnit | null;
  /** Unit starts the rollup answers (whole units inside the range and inside one group), and each one's group. */
  covered: number[];
  coveredGroups: number[];
  /** Hours a group boundary cuts: their rows are keyed by quarter hour. */
  splitHours: number[];
  /** Every row key (hour or quarter-hour start) in the range outside the covered units, and each one's group. */
  rowUnits: number[];
  rowGroups: number[];
}

/** The group of instant t: the last boundary at or before it (boundaries ascending, t ≥ the first). */
function groupAt(boundaries: readonly number[], t: number): number {
  let lo = 0;
  let hi = boundaries.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((boundaries[mid] as number) <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;

/**
 * The plan for groups given by `boundaries` b0 < … < bn (group i is [b_i, b_{i+1}); the range is
 * [b0, bn)), reading `rollup` units where they fit.
 */
export function planRead(boundaries: readonly number[], rollup: RollupUnit | null): ReadPlan {
  const from = boundaries[0] as number;
  const to = boundaries[boundaries.length - 1] as number;
  const inner = boundaries.slice(1, -1);
  const cutInside = (start: number, length: number) => inner.some((b) => b > start && b < start + length);
  const plan: ReadPlan = { from, to, rollup, covered: [], coveredGroups: [], splitHours: [], rowUnits: [], rowGroups: [] };
  const coveredSet = new Set<number>();
  if (rollup) {
    const unit = rollup === 'hour' ? HOUR_MS : DAY_MS;
    for (let u = Math.ceil(from / unit) * unit; u + unit <= to; u += unit) {
      if (cutInside(u, unit)) continue;
      plan.covered.push(u);
      plan.coveredGroups.push(groupAt(boundaries, u));
      coveredSet.add(rollup === 'hour' ? u : floorTo(u, DAY_MS));
    }
  }
  const coveredBy = rollup === 'day' ? DAY_MS : HOUR_MS;
  for (let h = floorTo(from, HOUR_MS); h < to; h += HOUR_MS) {
    if (coveredSet.has(floorTo(h, coveredBy))) continue;
    if (cutInside(h, HOUR_MS)) {
      plan.splitHours.push(h);
      for (let q = h; q < h + HOUR_MS && q < to; q += QUARTER_MS) {
        plan.rowUnits.push(q);
        plan.rowGroups.push(groupAt(boundaries, Math.max(q, from)));
      }
    } else {
      plan.rowUnits.push(h);
      plan.rowGroups.push(groupAt(boundaries, Math.max(h, from)));
    }
  }
  return plan;
}
