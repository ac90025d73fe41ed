/** A site's e-mail reports in its settings: when each goes next, what failed, add, pause, test, delete. */
import { useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi, useChanges } from '../api.ts';
import { FieldError, Load, Panel, StatusNote } from '../components/panel.tsx';
import { formatTimestamp } from '../format.ts';
import { DigestFieldInputs, FREQUENCIES, recipientList, type DigestFields } from './digest-fields.tsx';

interface EmailReport {
  id: string;
  frequency: string;
  tz: string;
  recipients: string[];
  inherits: string[];
  enabled: boolean;
  last_sent_at: string | null;
  next_send_at: string | null;
  last_error: string | null;
}

const frequencyText = (f: string) => FREQUENCIES.find(([v]) => v === f)?.[1] ?? f;

function ReportForm({ hostname, onSaved }: { hostname: string; onSaved: () => void }) {
  const [f, setF] = useState<DigestFields>({ frequency: '', tz: '', recipients: '' });
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const recipients = recipientList(f.recipients);
    try {
      await api(`${sitePath(hostname)}/reports`, {
        method: 'POST',
        body: { ...(f.frequency ? { frequency: f.frequency } : {}), ...(f.tz.trim() ? { tz: f.tz.trim() } : {}), ...(recipients.length ? { recipients } : {}) },
      });
      setF({ frequency: '', tz: '', recipients: '' });
      onSaved();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The report was not saved.');
    }
  };
  return (
    <form class="rule-form" onSubmit={submit} data-testid="email-report-form">
      <DigestFieldInputs f={f} set={setF} inherit />
      <button type="submit">Add e-mail report</button>
      <FieldError message={error} />
    </form>
  );
}

export function EmailReports({ hostname }: { hostname: string }) {
  const reports = useApi<{ reports: EmailReport[] }>(`${sitePath(hostname)}/reports`);
  const { call, outcome } = useChanges(reports.reload);
  return (
    <Panel title="E-mail reports" id="email-reports">
      <p class="note">Mailed at 07:00 in the report’s time zone, each for the period before. Fields left empty follow your account’s report defaults (on the sites page).</p>
      <Load state={reports} label="e-mail reports">
        {(d) =>
          d.reports.length === 0 ? (
            <p class="empty">No e-mail reports yet.</p>
          ) : (
            <ul class="rule-list" data-testid="email-reports">
              {d.reports.map((r) => {
                const one = `${sitePath(hostname)}/reports/${r.id}`;
                return (
                  <li key={r.id}>
                    <strong>{frequencyText(r.frequency)}</strong> ({r.tz}) → {r.recipients.join(', ')}
                    {r.inherits.length > 0 && <span class="note"> · follows the defaults: {r.inherits.join(', ')}</span>}
                    {r.enabled ? (r.next_send_at ? ` · next ${formatTimestamp(r.next_send_at)}` : '') : ' (paused)'}
                    {r.last_sent_at && ` · last sent ${formatTimestamp(r.last_sent_at)}`}{' '}
                    <button type="button" onClick={() => call(one, 'PATCH', { enabled: !r.enabled })}>
                      {r.enabled ? 'Pause' : 'Resume'}
                    </button>{' '}
                    <button type="button" onClick={() => call(`${one}/test`, 'POST', undefined, `Test report sent to ${r.recipients.join(', ')}.`)}>
                      Send test
                    </button>{' '}
                    <button type="button" onClick={() => window.confirm('Delete this e-mail report?') && call(one, 'DELETE')}>
                      Delete
                    </button>
                    {r.last_error && (
                      <p class="error" role="alert">
                        The last send failed: {r.last_error}. The next run tries again.
                      </p>
                    )}
                  </li>
                );
              })}
            </ul>
          )
        }
      </Load>
      <StatusNote text={outcome} />
      <ReportForm hostname={hostname} onSaved={reports.reload} />
    </Panel>
  );
}
