/** A site's alert rules in the API view: their state and last changes, add, pause, test, delete. */
import { useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi, useChanges } from '../api.ts';
import { FieldError, Load, Panel, StatusNote } from '../components/panel.tsx';
import { formatTimestamp } from '../format.ts';

interface Rule {
  id: string;
  name: string;
  metric: string;
  comparator: string;
  threshold: number;
  window_minutes: number;
  route: string | null;
  recipients: string[];
  enabled: boolean;
  state: 'ok' | 'firing';
  last_changed_at: string | null;
  history: { at: string; state: string; value: number | null }[];
}

const METRICS = [
  ['error_rate', 'Error rate (fraction 0–1)'],
  ['p95_ms', 'p95 latency (ms)'],
  ['requests', 'Requests'],
  ['pageviews', 'Pageviews'],
  ['visitors', 'Visitors'],
] as const;

function RuleForm({ hostname, onSaved }: { hostname: string; onSaved: () => void }) {
  const [f, setF] = useState({ name: '', metric: 'error_rate', comparator: '>', threshold: '0.05', window_minutes: '15', route: '', recipients: '' });
  const [error, setError] = useState<string | null>(null);
  const field = (key: keyof typeof f) => (e: Event) => setF({ ...f, [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const recipients = f.recipients.split(',').map((r) => r.trim()).filter(Boolean);
    try {
      await api(`${sitePath(hostname)}/alerts`, {
        method: 'POST',
        body: { name: f.name, metric: f.metric, comparator: f.comparator, threshold: Number(f.threshold), window_minutes: Number(f.window_minutes), ...(f.route ? { route: f.route } : {}), ...(recipients.length ? { recipients } : {}) },
      });
      setF({ ...f, name: '' });
      onSaved();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The rule was not saved.');
    }
  };
  return (
    <form class="rule-form" onSubmit={submit}>
      <label class="control">
        <span>Name</span>
        <input required maxLength={100} value={f.name} onInput={field('name')} />
      </label>
      <label class="control">
        <span>Metric</span>
        <select value={f.metric} onChange={field('metric')}>
          {METRICS.map(([m, text]) => (
            <option key={m} value={m}>
              {text}
            </option>
          ))}
        </select>
      </label>
      <label class="control">
        <span>When</span>
        <select value={f.comparator} onChange={field('comparator')}>
          <option value=">">above</option>
          <option value="<">below</option>
        </select>
      </label>
      <label class="control">
        <span>Threshold</span>
        <input inputMode="decimal" value={f.threshold} onInput={field('threshold')} />
      </label>
      <label class="control">
        <span>Over (minutes)</span>
        <input inputMode="numeric" value={f.window_minutes} onInput={field('window_minutes')} />
      </label>
      <label class="control">
        <span>Route (optional)</span>
        <input value={f.route} onInput={field('route')} placeholder="/users/{id}" />
      </label>
      <label class="control grow">
        <span>Recipients (comma-separated; default: your e-mail)</span>
        <input value={f.recipients} onInput={field('recipients')} placeholder="oncall@example.com" />
      </label>
      <button type="submit">Add rule</button>
      <FieldError message={error} />
    </form>
  );
}

export function AlertRules({ hostname }: { hostname: string }) {
  const rules = useApi<{ alerts: Rule[] }>(`${sitePath(hostname)}/alerts`);
  const { call, outcome } = useChanges(rules.reload);
  return (
    <Panel title="Alert rules" id="alert-rules">
      <p class="note">Checked every minute; a mail goes out when a rule fires and when it resolves.</p>
      <Load state={rules} label="alert rules">
        {(d) =>
          d.alerts.length === 0 ? (
            <p class="empty">No alert rules yet.</p>
          ) : (
            <ul class="rule-list" data-testid="alert-rules">
              {d.alerts.map((r) => (
                <li key={r.id} data-state={r.state}>
                  <span class={`badge ${r.state === 'firing' ? 'pending' : 'ok'}`}>{r.state === 'firing' ? 'Firing' : 'OK'}</span> <strong>{r.name}</strong>: {r.metric} {r.comparator} {r.threshold} over {r.window_minutes} min
                  {r.route ? ` on ${r.route}` : ''} → {r.recipients.join(', ')}
                  {!r.enabled && ' (paused)'}
                  {r.last_changed_at && ` · changed ${formatTimestamp(r.last_changed_at)}`}{' '}
                  <button type="button" onClick={() => call(`${sitePath(hostname)}/alerts/${r.id}`, 'PATCH', { enabled: !r.enabled })}>
                    {r.enabled ? 'Pause' : 'Resume'}
                  </button>{' '}
                  <button type="button" onClick={() => call(`${sitePath(hostname)}/alerts/${r.id}/test`, 'POST', undefined, `Test mail sent to ${r.recipients.join(', ')}.`)}>
                    Send test
                  </button>{' '}
                  <button type="button" onClick={() => window.confirm(`Delete "${r.name}"?`) && call(`${sitePath(hostname)}/alerts/${r.id}`, 'DELETE')}>
                    Delete
                  </button>
                  {r.history.length > 0 && (
                    <details>
                      <summary>History</summary>
                      <ul>
                        {r.history.map((h) => (
                          <li key={h.at}>
                            {formatTimestamp(h.at)}: {h.state} ({h.value ?? 'no data'})
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Load>
      <StatusNote text={outcome} />
      <RuleForm hostname={hostname} onSaved={rules.reload} />
    </Panel>
  );
}
