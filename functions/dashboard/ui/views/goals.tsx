/**
 * Goals and funnels: each goal's conversions and rate for the URL's period
 * (a click narrows the overview to the visitors who converted), an ordered
 * funnel as a bar per step, and the editors of both with the API's refusals
 * shown beside the field. The overview shows the same goal stats beside its
 * totals, with a goal picker (GoalSummary).
 */
import { useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { ReportControls } from '../components/report-controls.tsx';
import { formatChange, formatNumber, formatRate } from '../format.ts';
import { apiQuery, withFilter, withoutFilter, writeState, browserTimezone, type ReportState } from '../report-state.ts';
import { linkClick, navigate, siteUrl } from '../router.ts';

type GoalType = 'page' | 'event';
interface Step {
  type: GoalType;
  match: string;
}
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
interface Funnel {
  id: string;
  name: string;
  steps: Step[];
}
interface FunnelStats {
  visitors: number;
  steps: (Step & { visitors: number; dropoff: number; conversion_rate: number })[];
}

const MATCH_HINT: Record<GoalType, string> = {
  page: 'A path: /pricing, or with * for any characters: /blog/*',
  event: 'An event name, as sent with tt_event',
};

const stepText = (s: Step) => (s.type === 'page' ? `Visit ${s.match}` : `Event ${s.match}`);

/** A result or the API's refusal text, for a form to show. */
async function attempt(call: () => Promise<unknown>): Promise<string | null> {
  try {
    await call();
    return null;
  } catch (e) {
    return e instanceof ApiError ? e.message : 'The request failed.';
  }
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

function MatchFields({ step, onChange, idPrefix }: { step: Step; onChange: (s: Step) => void; idPrefix: string }) {
  return (
    <>
      <label class="control">
        <span>Type</span>
        <select id={`${idPrefix}-type`} value={step.type} onChange={(e) => onChange({ ...step, type: (e.currentTarget as HTMLSelectElement).value as GoalType })}>
          <option value="page">Page visit</option>
          <option value="event">Custom event</option>
        </select>
      </label>
      <label class="control grow">
        <span>{step.type === 'page' ? 'Path' : 'Event name'}</span>
        <input id={`${idPrefix}-match`} required value={step.match} placeholder={step.type === 'page' ? '/pricing' : 'signup'} title={MATCH_HINT[step.type]} onInput={(e) => onChange({ ...step, match: (e.currentTarget as HTMLInputElement).value })} />
      </label>
    </>
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

/** A bar per step: its visitors against the first step's, with drop-off and rate. */
function FunnelChart({ stats }: { stats: FunnelStats }) {
  const first = Math.max(stats.steps[0]?.visitors ?? 0, 1);
  return (
    <ol class="funnel" data-testid="funnel-chart">
      {stats.steps.map((s, i) => (
        <li key={i}>
          <span class="funnel-label">
            {i + 1}. {stepText(s)}
          </span>
          <span class="funnel-track">
            <span class="funnel-bar" style={{ width: `${(s.visitors / first) * 100}%` }} aria-hidden="true" />
          </span>
          <span class="funnel-numbers">
            {formatNumber(s.visitors)} {s.visitors === 1 ? 'visitor' : 'visitors'} · {formatRate(s.conversion_rate)}
            {i > 0 && ` · ${formatNumber(s.dropoff)} dropped off`}
          </span>
        </li>
      ))}
    </ol>
  );
}

const NEW_STEPS: Step[] = [
  { type: 'page', match: '' },
  { type: 'page', match: '' },
];

/** Add a funnel of 2 to 6 steps. */
function FunnelForm({ hostname, onSaved }: { hostname: string; onSaved: (id: string) => void }) {
  const [name, setName] = useState('');
  const [steps, setSteps] = useState<Step[]>(NEW_STEPS);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    let id = '';
    const failed = await attempt(async () => {
      id = (await api<{ id: string }>(`${sitePath(hostname)}/funnels`, { method: 'POST', body: { name, steps } })).id;
    });
    setError(failed);
    if (!failed) {
      setName('');
      setSteps(NEW_STEPS);
      onSaved(id);
    }
  };
  return (
    <form class="funnel-form" onSubmit={submit} data-testid="funnel-form">
      <label class="control">
        <span>Funnel name</span>
        <input required maxLength={100} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <ol class="funnel-steps">
        {steps.map((s, i) => (
          <li key={i}>
            <MatchFields step={s} idPrefix={`step-${i}`} onChange={(next) => setSteps(steps.map((x, j) => (j === i ? next : x)))} />
            {steps.length > 2 && (
              <button type="button" aria-label={`Remove step ${i + 1}`} onClick={() => setSteps(steps.filter((_, j) => j !== i))}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ol>
      <div class="form-actions">
        <button type="button" disabled={steps.length >= 6} onClick={() => setSteps([...steps, { type: 'page', match: '' }])}>
          Add step
        </button>
        <button type="submit">Add funnel</button>
      </div>
      <FieldError message={error} />
    </form>
  );
}

function FunnelsPanel({ hostname, query }: { hostname: string; query: string }) {
  const funnels = useApi<{ funnels: Funnel[] }>(`${sitePath(hostname)}/funnels`);
  const [chosen, setChosen] = useState<string | null>(null);
  const list = funnels.data?.funnels ?? [];
  const id = chosen && list.some((f) => f.id === chosen) ? chosen : (list[0]?.id ?? null);
  const stats = useApi<FunnelStats>(id ? `${sitePath(hostname)}/funnels/${id}/stats?${query}` : null);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    const f = list.find((x) => x.id === id);
    if (!f || !window.confirm(`Delete the funnel "${f.name}"?`)) return;
    setError(await attempt(() => api(`${sitePath(hostname)}/funnels/${f.id}`, { method: 'DELETE' })));
    funnels.reload();
  };
  return (
    <Panel
      title="Funnels"
      id="funnels"
      actions={
        list.length > 0 ? (
          <span class="panel-choice">
            <label for="funnel-choice">Funnel</label>
            <select id="funnel-choice" value={id ?? ''} onChange={(e) => setChosen((e.currentTarget as HTMLSelectElement).value)}>
              {list.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.name}
                </option>
              ))}
            </select>
            <button type="button" onClick={remove}>
              Delete
            </button>
          </span>
        ) : null
      }
    >
      <p class="note">Visitors who took the steps in order on one day; other pages between steps are fine.</p>
      <Load state={funnels} label="funnels">
        {(d) => (d.funnels.length === 0 ? <p class="empty">No funnels yet.</p> : <Load state={stats} label="the funnel">{(s) => <FunnelChart stats={s} />}</Load>)}
      </Load>
      <FieldError message={error} />
      <FunnelForm
        hostname={hostname}
        onSaved={(newId) => {
          setChosen(newId);
          funnels.reload();
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
      <ReportControls state={state} setState={setState} valueNames={names} />
      <GoalsPanel hostname={hostname} query={query} state={state} />
      <FunnelsPanel hostname={hostname} query={query} />
    </div>
  );
}
