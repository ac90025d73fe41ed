/**
 * The report views' keyboard shortcuts, as pure functions: which key does what
 * to the report state (a period key, the previous or next period, clearing the
 * filters) or opens the list of shortcuts. The page wires them to keydown
 * (components/shortcuts.tsx).
 */
import { addDays, daysBetween, PERIODS, stateDays, today, type Day, type Period, type ReportState } from './report-state.ts';

/** Period keys, as Plausible's (the periods this dashboard has: no year to date, no all time). */
export const PERIOD_KEYS: readonly (readonly [string, Exclude<Period, 'custom'>])[] = [
  ['d', 'today'],
  ['e', 'yesterday'],
  ['w', '7d'],
  ['t', '30d'],
  ['m', 'month'],
  ['y', '12mo'],
];

/** What the help dialog lists: keys as shown, and what they do. */
export const SHORTCUT_HELP: readonly (readonly [string, string])[] = [
  ['D', 'Today'],
  ['E', 'Yesterday'],
  ['W', 'Last 7 days'],
  ['T', 'Last 30 days'],
  ['M', 'This month'],
  ['Y', 'Last 12 months'],
  ['←', 'Previous period'],
  ['→', 'Next period'],
  ['Esc', 'Clear the filters'],
  ['?', 'This list of shortcuts'],
];

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The key went to a text field, select or editable element: it is typing, not a shortcut. */
  inField: boolean;
}

export type ShortcutAction = { kind: 'state'; state: ReportState } | { kind: 'help' };

const lastDayOfMonth = (day: Day): Day => addDays(monthShift(day, 1), -1);
/** The first day of the month `n` months after the month of `day`. */
function monthShift(day: Day, n: number): Day {
  const [y, m] = [Number(day.slice(0, 4)), Number(day.slice(5, 7))];
  return new Date(Date.UTC(y, m - 1 + n, 1)).toISOString().slice(0, 10);
}

/** A range of whole calendar months (the month preset, or a custom range from a 1st to a month's end). */
const wholeMonths = (state: ReportState, from: Day, to: Day) => from.endsWith('-01') && (state.period === 'month' || to === lastDayOfMonth(to));

/** The preset covering exactly these days today, else a custom range. */
function stateOfDays(state: ReportState, from: Day, to: Day, nowSeconds: number): ReportState {
  for (const period of PERIODS) {
    if (period === 'custom') continue;
    const days = stateDays({ ...state, period }, nowSeconds);
    if (days.from === from && days.to === to) return { ...state, period, from: null, to: null };
  }
  return { ...state, period: 'custom', from, to };
}

/**
 * The period before (`-1`) or after (`1`) the state's: as long in days (a whole month moves by
 * calendar months), the last day clipped to today; null when it would start after today.
 */
export function shiftPeriod(state: ReportState, direction: -1 | 1, nowSeconds: number): ReportState | null {
  const { from, to } = stateDays(state, nowSeconds);
  const t = today(state.tz, nowSeconds);
  let next: { from: Day; to: Day };
  if (wholeMonths(state, from, to)) {
    const months = (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 + Number(to.slice(5, 7)) - Number(from.slice(5, 7)) + 1;
    const first = monthShift(from, direction * months);
    next = { from: first, to: addDays(monthShift(first, months), -1) };
  } else {
    const n = daysBetween(from, to) * direction;
    next = { from: addDays(from, n), to: addDays(to, n) };
  }
  if (next.from > t) return null;
  return stateOfDays(state, next.from, next.to < t ? next.to : t, nowSeconds);
}

/** What a key press does to a report view with `state`, or null (not a shortcut, typing, a modifier held, nothing to do). */
export function shortcutAction(press: KeyPress, state: ReportState, nowSeconds: number): ShortcutAction | null {
  if (press.inField || press.ctrlKey || press.metaKey || press.altKey) return null;
  if (press.key === '?') return { kind: 'help' };
  if (press.key === 'Escape') return state.filters.length > 0 ? { kind: 'state', state: { ...state, filters: [] } } : null;
  if (press.key === 'ArrowLeft' || press.key === 'ArrowRight') {
    const shifted = shiftPeriod(state, press.key === 'ArrowLeft' ? -1 : 1, nowSeconds);
    return shifted ? { kind: 'state', state: shifted } : null;
  }
  const period = PERIOD_KEYS.find(([k]) => k === press.key)?.[1];
  if (!period || (state.period === period && !state.from)) return null;
  return { kind: 'state', state: { ...state, period, from: null, to: null } };
}
