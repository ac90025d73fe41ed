/**
 * Goals and funnels: each goal's conversions and rate for the URL's period
 * (a click narrows the overview to the visitors who converted), an ordered
 * funnel as a bar per step, and the editors of both with the API's refusals
 * shown beside the field. The overview shows the same goal stats beside its
 * totals, with a goal picker (GoalSummary). Funnels: funnels.tsx.
 */
import { useState } from 'preact/hooks';
import { api, sitePath, useApi } from '../api.ts';
import { attempt, MATCH_HINT, MatchFields, stepText, type Step } from './goal-fields.tsx';
import { FunnelsPanel } from './funnels.tsx';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { ReportControls } from '../components/report-controls.tsx';
import { formatChange, formatNumber, formatRate } from '../format.ts';
import { apiQuery, withFilter, withoutFilter, writeState, browserTimezone, type ReportState } from '../report-state.ts';
import { linkClick, navigate, siteUrl } from '../router.ts';

export interface Goal extends Step {
  id: string;
  name: string;
}
interface GoalCounts extends Goal {
  conversions: number;
  visitors: number;
  conversion_rate: number;
}
export interface GoalStats {
  goals: GoalCounts[];
  previous: GoalCounts[];
  visitors: number;
}
/** Names of the site's goals by id: how a goal filter reads in the filter chips. */
export function useGoalNames(hostname: string, signedIn: boolean): Record<string, string> {
  const goals = useApi<{ goals: Goal[] }>(signedIn ? `${sitePath(hostname)}/goals` : null);
  return Object.fromEntries((goals.data?.goals ?? []).map((g) => [g.id, g.name]));
}

/** Goal conversions with their rate and change, each goal a button applying its filter (`onPick`). */
function GoalTable({ stats, onPick, picked }: { stats: GoalStats; onPick: (goal: Goal) => void; picked: string | null }) {
  if (stats.goals.length === 0) return <p class="empty">No goals yet.</p>;
  return (
    <table class="breakdown" data-testid="goal-stats">
      <thead>
        <tr>
          <th scope="col">Goal</th>
          <th scope="col" class="num">
            Visitors
          </th>
          <th scope="col" class="num">
            Conversions
          </th>
          <th scope="col" class="num">
            Rate
          </th>
        </tr>
      </thead>
      <tbody>
        {stats.goals.map((g, i) => {
          const change = formatChange(g.conversion_rate, stats.previous[i]?.conversion_rate ?? null);
          return (
            <tr key={g.id}>
              <th scope="row" class="name">
                <span class="bar" style={{ width: `${g.conversion_rate * 100}%` }} aria-hidden="true" />
                <button type="button" class="row-filter" aria-pressed={picked === g.id ? 'true' : 'false'} title={`Show the visitors who converted on ${g.name}`} onClick={() => onPick(g)}>
                  {g.name}
                </button>
              </th>
              <td class="num">{formatNumber(g.visitors)}</td>
              <td class="num">{formatNumber(g.conversions)}</td>
              <td class="num">
                {formatRate(g.conversion_rate)}
                {change && <span class="change-small"> ({change})</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The overview's goals: conversions beside the totals, and a picker applying `goal:<id>` to every panel. */
export function GoalSummary({ hostname, state, setState }: { hostname: string; state: ReportState; setState: (s: ReportState) => void }) {
  // The stats count conversions under the view's other filters, never narrowed to one goal's visitors.
  const query = apiQuery(withoutFilter(state, 'goal'), Date.now() / 1000).toString();
  const stats = useApi<GoalStats>(`${sitePath(hostname)}/goals/stats?${query}`);
  const picked = state.filters.find((f) => f.dim === 'goal')?.value ?? null;
  const pick = (id: string) => setState(id ? withFilter(state, { dim: 'goal', op: 'eq', value: id }) : withoutFilter(state, 'goal'));
  return (
    <Panel
      title="Goals"
      id="goal-summary"
      actions={
        stats.data && stats.data.goals.length > 0 ? (
          <span class="panel-choice">
            <label for="goal-picker">Visitors</label>
            <select id="goal-picker" value={picked ?? ''} onChange={(e) => pick((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">All visitors</option>
              {stats.data.goals.map((g) => (
                <option key={g.id} value={g.id}>
                  Converted on {g.name}
                </option>
              ))}
            </select>
          </span>
        ) : null
      }
    >
      <Load state={stats} label="goals">
        {(d) =>
          d.goals.length === 0 ? (
            <p class="empty">
              No goals yet.{' '}
              <a href={siteUrl(hostname, 'goals')} onClick={linkClick}>
                Add one
              </a>{' '}
              to see conversions here.
            </p>
          ) : (
            <GoalTable stats={d} picked={picked} onPick={(g) => pick(picked === g.id ? '' : g.id)} />
          )
        }
      </Load>
    </Panel>
  );
}

/** Add a goal, or change one (`editing`). */
function GoalForm({ hostname, editing, onSaved }: { hostname: string; editing: Goal | null; onSaved: () => void }) {
  const [goal, setGoal] = useState<Step & { name: string }>(editing ? { type: editing.type, match: editing.match, name: editing.name } : { type: 'page', match: '', name: '' });
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = { type: goal.type, match: goal.match, ...(goal.name.trim() ? { name: goal.name } : {}) };
    const failed = await attempt(() => api(editing ? `${sitePath(hostname)}/goals/${editing.id}` : `${sitePath(hostname)}/goals`, { method: editing ? 'PATCH' : 'POST', body }));
    setError(failed);
    if (!failed) {
      setGoal({ type: goal.type, match: '', name: '' });
      onSaved();
    }
  };
  return (
    <form class="rule-form" onSubmit={submit} data-testid="goal-form">
      <MatchFields step={goal} onChange={(s) => setGoal({ ...goal, ...s })} idPrefix="goal" />
      <label class="control">
        <span>Name (optional)</span>
        <input maxLength={100} value={goal.name} onInput={(e) => setGoal({ ...goal, name: (e.currentTarget as HTMLInputElement).value })} />
      </label>
      <button type="submit">{editing ? 'Save goal' : 'Add goal'}</button>
      <p class="note">{MATCH_HINT[goal.type]}.</p>
      <FieldError message={error} />
    </form>
  );
}

function GoalsPanel({ hostname, query, state }: { hostname: string; query: string; state: ReportState }) {
  const stats = useApi<GoalStats>(`${sitePath(hostname)}/goals/stats?${query}`);
  const [editing, setEditing] = useState<Goal | null>(null);
  const [error, setError] = useState<string | null>(null);
  const showConverted = (g: Goal) => {
    const next = withFilter(state, { dim: 'goal', op: 'eq', value: g.id });
    const q = writeState(next, browserTimezone());
    navigate(siteUrl(hostname, 'overview', q));
  };
  const remove = async (g: Goal) => {
    if (!window.confirm(`Delete the goal "${g.name}"?`)) return;
    setError(await attempt(() => api(`${sitePath(hostname)}/goals/${g.id}`, { method: 'DELETE' })));
    stats.reload();
  };
  return (
    <Panel title="Goals" id="goals">
      <p class="note">A goal converts once per visitor and day. Pick one to see where its visitors came from.</p>
      <Load state={stats} label="goals">
        {(d) => (
          <>
            <GoalTable stats={d} picked={null} onPick={showConverted} />
            {d.goals.length > 0 && (
              <ul class="rule-list" aria-label="Edit goals">
                {d.goals.map((g) => (
                  <li key={g.id}>
                    <strong>{g.name}</strong>: {stepText(g)}{' '}
                    <button type="button" onClick={() => setEditing(g)}>
                      Edit
                    </button>{' '}
                    <button type="button" onClick={() => remove(g)}>
                      Delete
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </Load>
      <FieldError message={error} />
      <GoalForm
        key={editing?.id ?? 'new'}
        hostname={hostname}
        editing={editing}
        onSaved={() => {
          setEditing(null);
          stats.reload();
        }}
      />
    </Panel>
  );
}

export function GoalsView({ hostname, state, setState }: { hostname: string; state: ReportState; setState: (s: ReportState) => void }) {
  const query = apiQuery(state, Date.now() / 1000).toString();
  const names = useGoalNames(hostname, true);
  return (
    <div class="overview">
      <ReportControls state={state} setState={setState} valueNames={names} menu={{ base: sitePath(hostname), signedIn: true }} />
      <GoalsPanel hostname={hostname} query={query} state={state} />
      <FunnelsPanel hostname={hostname} query={query} />
    </div>
  );
}
