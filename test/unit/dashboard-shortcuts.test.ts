import { describe, expect, it } from 'vitest';
import { shiftPeriod, shortcutAction, type KeyPress } from '#dashboard/ui/shortcuts.ts';
import type { ReportState } from '#dashboard/ui/report-state.ts';

// 2026-03-29 10:00 UTC.
const NOW = Date.UTC(2026, 2, 29, 10) / 1000;
const base: ReportState = { period: '30d', from: null, to: null, tz: 'UTC', filters: [], interval: null };
const press = (key: string, more: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, altKey: false, inField: false, ...more });
const custom = (from: string, to: string): ReportState => ({ ...base, period: 'custom', from, to });
const stateAfter = (key: string, state: ReportState = base) => {
  const action = shortcutAction(press(key), state, NOW);
  return action?.kind === 'state' ? action.state : action;
};

describe('dashboard keyboard shortcuts', () => {
  it('period keys choose the presets and keep the filters, timezone and chart buckets', () => {
    const state: ReportState = { ...base, tz: 'Europe/Berlin', filters: [{ dim: 'page', op: 'eq', value: '/a' }], interval: 'day' };
    const periods = Object.fromEntries(['d', 'e', 'w', 't', 'm', 'y'].map((k) => [k, (stateAfter(k, { ...state, period: 'today' }) as ReportState | null)?.period ?? null]));
    expect(periods).toEqual({ d: null, e: 'yesterday', w: '7d', t: '30d', m: 'month', y: '12mo' });
    expect(stateAfter('w', state)).toEqual({ ...state, period: '7d' });
    // A custom range left for a preset drops its days.
    expect(stateAfter('t', custom('2026-01-01', '2026-01-31'))).toEqual(base);
  });

  it('are ignored while typing, with Ctrl, Meta or Alt held, and for other keys', () => {
    for (const more of [{ inField: true }, { ctrlKey: true }, { metaKey: true }, { altKey: true }]) {
      expect(shortcutAction(press('w', more), base, NOW)).toBeNull();
      expect(shortcutAction(press('?', more), base, NOW)).toBeNull();
    }
    expect(shortcutAction(press('x'), base, NOW)).toBeNull();
    expect(shortcutAction(press('W'), base, NOW)).toBeNull();
  });

  it('Escape clears the filters, and does nothing without any', () => {
    expect(stateAfter('Escape', { ...base, filters: [{ dim: 'country', op: 'neq', value: 'DE' }] })).toEqual(base);
    expect(stateAfter('Escape')).toBeNull();
  });

  it('? opens the list', () => {
    expect(shortcutAction(press('?'), base, NOW)).toEqual({ kind: 'help' });
  });

  it('arrows move by the length of the period, back to a preset when the days are one', () => {
    expect(stateAfter('ArrowLeft', { ...base, period: 'today' })).toEqual({ ...base, period: 'yesterday' });
    expect(stateAfter('ArrowRight', { ...base, period: 'yesterday' })).toEqual({ ...base, period: 'today' });
    expect(stateAfter('ArrowLeft', { ...base, period: 'yesterday' })).toEqual(custom('2026-03-27', '2026-03-27'));
    expect(stateAfter('ArrowLeft', { ...base, period: '7d' })).toEqual(custom('2026-03-16', '2026-03-22'));
    expect(stateAfter('ArrowLeft')).toEqual(custom('2026-01-29', '2026-02-27'));
    expect(stateAfter('ArrowRight', custom('2026-01-29', '2026-02-27'))).toEqual(base);
    expect(stateAfter('ArrowLeft', { ...base, period: '12mo' })).toEqual(custom('2024-03-30', '2025-03-29'));
  });

  it('a whole month moves by calendar months, the current one clipped to today', () => {
    expect(stateAfter('ArrowLeft', { ...base, period: 'month' })).toEqual(custom('2026-02-01', '2026-02-28'));
    expect(stateAfter('ArrowLeft', custom('2026-02-01', '2026-02-28'))).toEqual(custom('2026-01-01', '2026-01-31'));
    expect(stateAfter('ArrowRight', custom('2026-02-01', '2026-02-28'))).toEqual({ ...base, period: 'month' });
    expect(stateAfter('ArrowLeft', custom('2025-11-01', '2025-12-31'))).toEqual(custom('2025-09-01', '2025-10-31'));
  });

  it('there is no period after today', () => {
    expect(stateAfter('ArrowRight', { ...base, period: 'today' })).toBeNull();
    expect(stateAfter('ArrowRight')).toBeNull();
    expect(stateAfter('ArrowRight', { ...base, period: 'month' })).toBeNull();
    expect(shiftPeriod(custom('2026-03-11', '2026-03-19'), 1, NOW)).toEqual(custom('2026-03-20', '2026-03-28'));
    // The next nine days would end after today: they stop at today (here: today alone).
    expect(shiftPeriod(custom('2026-03-20', '2026-03-28'), 1, NOW)).toEqual({ ...base, period: 'today' });
  });
});
