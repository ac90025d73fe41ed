/**
 * Imports: start one from Simple Analytics (the source's own fields, from
 * GET /api/import-sources), follow each job's progress (chunks_done of
 * chunks_total), cancel a running one, retry a failed one.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { formatNumber, formatTimestamp } from '../format.ts';
import type { ImportSource } from '#domain/imports/source.ts';
import type { ImportJobRecord } from '#ports/import-jobs.ts';

/** A source as GET /api/import-sources lists it (domain/imports/source.ts sourceView). */
type Source = ImportSource;
/** A job as the API shows it (domain/imports/job.ts jobView). */
type Job = Pick<ImportJobRecord, 'id' | 'status' | 'range_start' | 'range_end' | 'chunks_total' | 'chunks_done' | 'rows_imported' | 'rows_skipped' | 'error' | 'created_at'> & {
  source_label: string;
};

const ACTIVE = new Set(['queued', 'running']);

function StartImport({ hostname, source, onStarted }: { hostname: string; source: Source; onStarted: () => void }) {
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const [fields, setFields] = useState<Record<string, string>>({ source_hostname: hostname });
  const [range, setRange] = useState({ start: new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10), end: yesterday });
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api(`${sitePath(hostname)}/imports`, { method: 'POST', body: { source: source.id, range_start: range.start, range_end: range.end, config: fields } });
      onStarted();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not start the import.');
    }
  };
  return (
    <form class="stack" onSubmit={submit}>
      <p>{source.description}</p>
      {source.configFields.map((f) => (
        <div key={f.key} class="control">
          <label for={`import-${f.key}`}>{f.label}</label>
          <input
            id={`import-${f.key}`}
            type={f.type}
            required={f.required}
            placeholder={f.placeholder}
            autocomplete={f.type === 'password' ? 'off' : undefined}
            aria-describedby={f.help ? `import-${f.key}-help` : undefined}
            value={fields[f.key] ?? ''}
            onInput={(e) => setFields({ ...fields, [f.key]: (e.currentTarget as HTMLInputElement).value })}
          />
          {f.help && <small id={`import-${f.key}-help`}>{f.help}</small>}
        </div>
      ))}
      <div class="control-row">
        <label class="control">
          <span>First day (UTC)</span>
          <input type="date" required value={range.start} max={yesterday} onInput={(e) => setRange({ ...range, start: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <label class="control">
          <span>Last day (UTC)</span>
          <input type="date" required value={range.end} max={yesterday} onInput={(e) => setRange({ ...range, end: (e.currentTarget as HTMLInputElement).value })} />
        </label>
      </div>
      <button type="submit">Start import</button>
      <FieldError message={error} />
    </form>
  );
}

function JobRow({ hostname, job, onChanged }: { hostname: string; job: Job; onChanged: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const act = async (action: 'cancel' | 'retry') => {
    setError(null);
    try {
      await api(`${sitePath(hostname)}/imports/${job.id}/${action}`, { method: 'POST', body: {} });
      onChanged();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : `Could not ${action} the import.`);
    }
  };
  const total = Math.max(job.chunks_total, 1);
  return (
    <li class="job" data-testid={`import-${job.id}`}>
      <div class="job-head">
        <strong>{job.source_label}</strong> {job.range_start} – {job.range_end} <span class={`badge ${job.status}`}>{job.status}</span>
      </div>
      <progress max={total} value={job.chunks_done} aria-label={`Progress of the import from ${job.range_start} to ${job.range_end}`} />
      <small>
        {formatNumber(job.chunks_done)} of {formatNumber(job.chunks_total)} chunks · {formatNumber(job.rows_imported)} rows imported · {formatNumber(job.rows_skipped)} skipped · started{' '}
        {formatTimestamp(job.created_at)}
      </small>
      {job.error && <p class="field-error">{job.error}</p>}
      <div class="actions">
        {ACTIVE.has(job.status) && (
          <button type="button" onClick={() => void act('cancel')}>
            Cancel
          </button>
        )}
        {(job.status === 'failed' || job.status === 'cancelled') && (
          <button type="button" onClick={() => void act('retry')}>
            Retry
          </button>
        )}
      </div>
      <FieldError message={error} />
    </li>
  );
}

export function ImportsView({ hostname }: { hostname: string }) {
  const sources = useApi<{ sources: Source[] }>('/api/import-sources');
  const jobs = useApi<{ imports: Job[] }>(`${sitePath(hostname)}/imports`);
  const running = (jobs.data?.imports ?? []).some((j) => ACTIVE.has(j.status));
  // Progress moves on the server: while a job runs, read it again every few seconds.
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(jobs.reload, 3000);
    return () => clearInterval(timer);
  }, [running, jobs.reload]);
  return (
    <div class="stack">
      <Panel title="Import history" id="imports">
        <Load state={jobs} label="imports">
          {(d) =>
            d.imports.length === 0 ? (
              <p class="empty">No imports yet.</p>
            ) : (
              <ul class="jobs">
                {d.imports.map((j) => (
                  <JobRow key={j.id} hostname={hostname} job={j} onChanged={jobs.reload} />
                ))}
              </ul>
            )
          }
        </Load>
      </Panel>
      <Panel title="Start an import" id="start-import">
        <Load state={sources} label="import sources">
          {(d) => d.sources.map((s) => <StartImport key={s.id} hostname={hostname} source={s} onStarted={jobs.reload} />)}
        </Load>
      </Panel>
    </div>
  );
}
