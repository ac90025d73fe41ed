/**
 * The report's filters: chips (each editable and removable), "Clear all", and
 * a "Filter" button opening a menu of dimension, operator and value, the value
 * suggested from that dimension's breakdown under the other filters and
 * narrowed as one types. Escape or Cancel closes the menu and gives focus back
 * to what opened it. Several filters combine (AND); one per dimension.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FilterClause, FilterOp } from '#domain/reports/filter.ts';
import { useApi } from '../api.ts';
import type { BreakdownRow } from './breakdown.tsx';
import { clearFilters, FILTER_LABELS, matchingNames, MENU_DIMS, replacingFilter, suggestionQuery, SUGGESTION_DIMS, withoutFilter, type ReportState } from '../report-state.ts';

type Dim = FilterClause['dim'];
const OP_TEXT: Record<FilterOp, string> = { eq: 'is', neq: 'is not', contains: 'contains' };
const OPS = Object.keys(OP_TEXT) as FilterOp[];

/** Where the menu's suggestions are read: the site's reports or a share link's. */
export interface FilterMenuSource {
  base: string;
  signedIn: boolean;
}

/** What the menu edits: a new filter (null) or a chip's dimension. */
type Editing = { replacing: Dim | null };

export function Filters({ state, setState, valueNames, menu }: { state: ReportState; setState: (s: ReportState) => void; valueNames: Record<string, string>; menu?: FilterMenuSource }) {
  const [editing, setEditing] = useState<Editing | null>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  const open = (replacing: Dim | null) => {
    returnTo.current = document.activeElement as HTMLElement | null;
    setEditing({ replacing });
  };
  const close = () => {
    setEditing(null);
    // Back to what opened the menu, or to the Filter button when that is gone (a chip edited away).
    const back = returnTo.current?.isConnected ? returnTo.current : opener.current;
    setTimeout(() => (back?.isConnected ? back : opener.current)?.focus(), 0);
  };
  const shown = (f: FilterClause) => valueNames[f.value] ?? (f.value || '(none)');
  const goals = Object.keys(valueNames).length > 0;
  return (
    <div class="filters">
      <div class="control-row filter-row">
        {menu && (
          <button type="button" ref={opener} class="filter-open" aria-expanded={editing !== null} aria-controls="filter-menu" onClick={() => (editing ? close() : open(null))}>
            Filter
          </button>
        )}
        {state.filters.length > 0 && (
          <ul class="chips" aria-label="Filters">
            {state.filters.map((f) => (
              <li key={f.dim} class="chip" data-testid={`filter-${f.dim}`}>
                {menu ? (
                  <button type="button" class="chip-edit" title="Edit this filter" onClick={() => open(f.dim)}>
                    {FILTER_LABELS[f.dim]} {OP_TEXT[f.op]} <strong>{shown(f)}</strong>
                  </button>
                ) : (
                  <span>
                    {FILTER_LABELS[f.dim]} {OP_TEXT[f.op]} <strong>{shown(f)}</strong>
                  </span>
                )}
                <button type="button" class="chip-remove" aria-label={`Remove filter ${FILTER_LABELS[f.dim]} ${OP_TEXT[f.op]} ${shown(f)}`} onClick={() => setState(withoutFilter(state, f.dim))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        {state.filters.length > 1 && (
          <button type="button" class="link" onClick={() => setState(clearFilters(state))}>
            Clear all
          </button>
        )}
      </div>
      {menu && editing && (
        <FilterMenu
          key={editing.replacing ?? ''}
          initial={state.filters.find((f) => f.dim === editing.replacing) ?? null}
          state={state}
          source={menu}
          dims={goals ? MENU_DIMS : MENU_DIMS.filter((d) => d !== 'goal')}
          goalNames={valueNames}
          onApply={(clause) => {
            setState(replacingFilter(state, editing.replacing, clause));
            close();
          }}
          onClose={close}
        />
      )}
    </div>
  );
}

function FilterMenu({ initial, state, source, dims, goalNames, onApply, onClose }: {
  initial: FilterClause | null;
  state: ReportState;
  source: FilterMenuSource;
  dims: readonly Dim[];
  goalNames: Record<string, string>;
  onApply: (clause: FilterClause) => void;
  onClose: () => void;
}) {
  const [dim, setDim] = useState<Dim>(initial?.dim ?? 'page');
  const [op, setOp] = useState<FilterOp>(initial?.op ?? 'eq');
  const [value, setValue] = useState(initial?.value ?? '');
  const first = useRef<HTMLSelectElement>(null);
  useEffect(() => first.current?.focus(), []);
  const isGoal = dim === 'goal';
  const apply = (e: Event) => {
    e.preventDefault();
    if (value !== '') onApply(isGoal ? { dim, op: 'eq', value } : { dim, op, value });
  };
  return (
    <div
      id="filter-menu"
      class="filter-menu"
      role="dialog"
      aria-label={initial ? 'Edit filter' : 'Add a filter'}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.stopPropagation();
        onClose();
      }}
    >
      <form class="control-row" onSubmit={apply}>
        <label class="control">
          <span>Dimension</span>
          <select
            ref={first}
            value={dim}
            onChange={(e) => {
              setDim((e.currentTarget as HTMLSelectElement).value as Dim);
              setValue('');
            }}
          >
            {dims.map((d) => (
              <option key={d} value={d}>
                {FILTER_LABELS[d]}
              </option>
            ))}
          </select>
        </label>
        <label class="control">
          <span>Operator</span>
          <select value={isGoal ? 'eq' : op} onChange={(e) => setOp((e.currentTarget as HTMLSelectElement).value as FilterOp)}>
            {(isGoal ? (['eq'] as const) : OPS).map((o) => (
              <option key={o} value={o}>
                {OP_TEXT[o]}
              </option>
            ))}
          </select>
        </label>
        <ValueField isGoal={isGoal} value={value} setValue={setValue} goalNames={goalNames} />
        <button type="submit" disabled={value === ''}>
          Apply
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
      </form>
      {!isGoal && <Suggestions key={dim} dim={dim} typed={value} state={state} source={source} onPick={setValue} />}
    </div>
  );
}

/** A goal's: one of the site's goals (by id); any other dimension's: typed, or picked from the suggestions. */
function ValueField({ isGoal, value, setValue, goalNames }: { isGoal: boolean; value: string; setValue: (v: string) => void; goalNames: Record<string, string> }) {
  if (!isGoal) {
    return (
      <label class="control grow">
        <span>Value</span>
        <input type="search" value={value} autocomplete="off" aria-describedby="filter-suggestions-note" onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
      </label>
    );
  }
  return (
    <label class="control grow">
      <span>Goal</span>
      <select value={value} onChange={(e) => setValue((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">Choose a goal</option>
        {Object.entries(goalNames).map(([id, name]) => (
          <option key={id} value={id}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The dimension's values under the other filters (the breakdown's first 100), those matching what is typed. */
function Suggestions({ dim, typed, state, source, onPick }: { dim: Exclude<Dim, 'goal'>; typed: string; state: ReportState; source: FilterMenuSource; onPick: (value: string) => void }) {
  const rows = useApi<{ rows: BreakdownRow[] }>(`${source.base}/breakdown?dim=${SUGGESTION_DIMS[dim]}&limit=100&${suggestionQuery(state, dim, Date.now() / 1000)}`, source.signedIn);
  const names = matchingNames((rows.data?.rows ?? []).map((r) => r.name).filter((n) => n !== ''), typed);
  const note = rows.loading ? 'Loading suggestions…' : rows.error ? 'No suggestions (they could not be read).' : names.length === 0 ? 'No suggestions match.' : 'Suggestions:';
  return (
    <div class="suggestions">
      <p id="filter-suggestions-note">
        {note}
      </p>
      {names.length > 0 && (
        <ul aria-label="Suggested values" data-testid="filter-suggestions">
          {names.map((n) => (
            <li key={n}>
              <button type="button" class="suggestion" onClick={() => onPick(n)}>
                {n}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
