/** Period (presets or custom days), the chart's buckets, timezone, and the filters (chips, and the filter menu where `menu` says where to read suggestions). */
import { useState } from 'preact/hooks';
import { FieldError } from './panel.tsx';
import { Filters, type FilterMenuSource } from './filter-menu.tsx';
import { browserTimezone, INTERVAL_LABELS, MAX_DAYS, PERIOD_LABELS, PERIODS, daysBetween, stateDays, type Period, type ReportState } from '../report-state.ts';
import { INTERVALS, type Interval } from '#domain/reports/time.ts';

/** `valueNames`: how a filter's value reads where it is an id (a goal's name); the menu offers goals when there are some. */
/** The reports' period presets as a labelled select (the report controls, the export panel). */
export function PeriodSelect({ value, onChange }: { value: Period; onChange: (p: Period) => void }) {
  return (
    <label class="control">
      <span>Period</span>
      <select value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as Period)}>
        {PERIODS.map((p) => (
          <option key={p} value={p}>
            {PERIOD_LABELS[p]}
          </option>
        ))}
      </select>
    </label>
  );
}

export function ReportControls({ state, setState, valueNames = {}, menu }: { state: ReportState; setState: (s: ReportState) => void; valueNames?: Record<string, string>; menu?: FilterMenuSource }) {
  const days = stateDays(state, Date.now() / 1000);
  const [custom, setCustom] = useState({ from: days.from, to: days.to });
  const [showCustom, setShowCustom] = useState(state.period === 'custom');
  const customError =
    custom.from > custom.to ? 'The first day must not be after the last.' : daysBetween(custom.from, custom.to) > MAX_DAYS ? `A range can span at most ${MAX_DAYS} days.` : null;
  const zones = [...new Set([browserTimezone(), 'UTC', state.tz])];
  const choosePeriod = (period: Period) => {
    if (period === 'custom') {
      setCustom({ from: days.from, to: days.to });
      setShowCustom(true);
      return;
    }
    setShowCustom(false);
    setState({ ...state, period, from: null, to: null });
  };
  return (
    <div class="controls">
      <div class="control-row">
        <PeriodSelect value={showCustom ? 'custom' : state.period} onChange={choosePeriod} />
        <label class="control">
          <span>Chart by</span>
          <select value={state.interval ?? ''} onChange={(e) => setState({ ...state, interval: ((e.currentTarget as HTMLSelectElement).value || null) as Interval | null })}>
            <option value="">Automatic</option>
            {INTERVALS.map((i) => (
              <option key={i} value={i}>
                {INTERVAL_LABELS[i]}
              </option>
            ))}
          </select>
        </label>
        <label class="control">
          <span>Timezone</span>
          <select value={state.tz} onChange={(e) => setState({ ...state, tz: (e.currentTarget as HTMLSelectElement).value })}>
            {zones.map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        </label>
      </div>
      {showCustom && (
        <form
          class="control-row custom"
          onSubmit={(e) => {
            e.preventDefault();
            if (!customError) setState({ ...state, period: 'custom', from: custom.from, to: custom.to });
          }}
        >
          <label class="control">
            <span>From</span>
            <input type="date" required value={custom.from} onInput={(e) => setCustom({ ...custom, from: (e.currentTarget as HTMLInputElement).value })} />
          </label>
          <label class="control">
            <span>To</span>
            <input type="date" required value={custom.to} onInput={(e) => setCustom({ ...custom, to: (e.currentTarget as HTMLInputElement).value })} />
          </label>
          <button type="submit" disabled={customError !== null}>
            Apply
          </button>
          <FieldError message={customError} />
        </form>
      )}
      <Filters state={state} setState={setState} valueNames={valueNames} menu={menu} />
    </div>
  );
}
