/** A site's funnels: the chosen one as a bar per step with drop-off and rate, and its editor (add, change, delete). */
import { useState } from 'preact/hooks';
import { api, sitePath, useApi } from '../api.ts';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { formatNumber, formatRate } from '../format.ts';
import { attempt, MatchFields, stepText, type Step } from './goal-fields.tsx';

interface Funnel {
  id: string;
  name: string;
  steps: Step[];
}
interface FunnelStats {
  visitors: number;
  steps: (Step & { visitors: number; dropoff: number; conversion_rate: number })[];
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

/** Add a funnel of 2 to 6 steps, or change one (`editing`). */
function FunnelForm({ hostname, editing, onSaved }: { hostname: string; editing: Funnel | null; onSaved: (id: string) => void }) {
  const [name, setName] = useState(editing?.name ?? '');
  const [steps, setSteps] = useState<Step[]>(editing?.steps ?? NEW_STEPS);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    let id = '';
    const failed = await attempt(async () => {
      const path = editing ? `${sitePath(hostname)}/funnels/${editing.id}` : `${sitePath(hostname)}/funnels`;
      id = (await api<{ id: string }>(path, { method: editing ? 'PATCH' : 'POST', body: { name, steps } })).id;
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
        <button type="submit">{editing ? 'Save funnel' : 'Add funnel'}</button>
      </div>
      <FieldError message={error} />
    </form>
  );
}

export function FunnelsPanel({ hostname, query }: { hostname: string; query: string }) {
  const funnels = useApi<{ funnels: Funnel[] }>(`${sitePath(hostname)}/funnels`);
  const [chosen, setChosen] = useState<string | null>(null);
  const list = funnels.data?.funnels ?? [];
  const id = chosen && list.some((f) => f.id === chosen) ? chosen : (list[0]?.id ?? null);
  const stats = useApi<FunnelStats>(id ? `${sitePath(hostname)}/funnels/${id}/stats?${query}` : null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Funnel | null>(null);
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
            <button type="button" onClick={() => setEditing(list.find((x) => x.id === id) ?? null)}>
              Edit
            </button>
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
        key={editing?.id ?? 'new'}
        hostname={hostname}
        editing={editing}
        onSaved={(savedId) => {
          setEditing(null);
          setChosen(savedId);
          funnels.reload();
          stats.reload();
        }}
      />
    </Panel>
  );
}

