/**
 * A site's data (issue 42): how many months its rows are kept, with the daily
 * purge's last run (from GET …/setup), and erasing the rows of a range of days,
 * which needs the hostname typed before its button enables; the answer's
 * counts are shown.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { Load, Outcome, Panel } from '../components/panel.tsx';
import { formatTimestamp } from '../format.ts';

interface PurgeRun {
  at: string;
  retention_months: number;
  cutoff: string;
  rows_removed: number;
  oldest_row_kept: string | null;
}

interface Removed {
  events: number;
  api_requests: number;
  search_console: number;
  crawler_hits: number;
}

type Status = { error: boolean; text: string } | null;
const failed = (e: unknown, fallback: string): Status => ({ error: true, text: e instanceof ApiError ? e.message : fallback });
const rows = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'row' : 'rows'}`;

interface DataSetup {
  retention_months: number;
  last_purge: PurgeRun | null;
}

function LastPurge({ run }: { run: PurgeRun | null }) {
  return (
    <p class="note" data-testid="last-purge">
      {run
        ? `Last purge ${formatTimestamp(run.at)}: ${rows(run.rows_removed)} removed (kept from ${formatTimestamp(run.cutoff)}); oldest row kept ${run.oldest_row_kept ? formatTimestamp(run.oldest_row_kept) : 'none'}.`
        : 'The daily purge (00:00 UTC) has not run on this site yet.'}
    </p>
  );
}

function Retention({ hostname, setup, onSaved }: { hostname: string; setup: DataSetup; onSaved: () => void }) {
  const [months, setMonths] = useState(String(setup.retention_months));
  const [status, setStatus] = useState<Status>(null);
  const save = async () => {
    setStatus(null);
    try {
      await api(sitePath(hostname), { method: 'PATCH', body: { retention_months: Number(months) } });
      setStatus({ error: false, text: 'Retention saved: the next daily purge applies it.' });
      onSaved();
    } catch (e) {
      setStatus(failed(e, 'Could not save.'));
    }
  };
  return (
    <div class="stack">
      <form
        class="control-row"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label class="control">
          <span>Keep rows for (months, 1 to 25)</span>
          <input type="number" min={1} step={1} value={months} data-testid="retention-months" onInput={(e) => setMonths((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Save retention</button>
      </form>
      <LastPurge run={setup.last_purge} />
      <Outcome outcome={status} />
    </div>
  );
}

function EraseData({ hostname }: { hostname: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [confirm, setConfirm] = useState('');
  const [status, setStatus] = useState<Status>(null);
  const erase = async () => {
    setStatus(null);
    try {
      const r = await api<{ from: string; to: string; removed: Removed }>(`${sitePath(hostname)}/data?from=${from}&to=${to}`, { method: 'DELETE' });
      const { events, api_requests, search_console, crawler_hits } = r.removed;
      setStatus({
        error: false,
        text: `Removed from ${r.from} to ${r.to}: ${rows(events)} of events, ${rows(api_requests)} of API requests, ${rows(search_console)} of Search Console, ${rows(crawler_hits)} of crawler hits.`,
      });
      setConfirm('');
    } catch (e) {
      setStatus(failed(e, 'Could not delete the data.'));
    }
  };
  const field = (label: string, value: string, set: (v: string) => void, testId: string) => (
    <label class="control">
      <span>{label}</span>
      <input type="date" value={value} data-testid={testId} onInput={(e) => set((e.currentTarget as HTMLInputElement).value)} />
    </label>
  );
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void erase();
      }}
    >
      <p class="note">Removes the site's collected and imported rows of these days (UTC, both included) from every report: events, API requests, Search Console and crawler hits. It cannot be undone.</p>
      <div class="control-row">
        {field('From', from, setFrom, 'erase-from')}
        {field('To', to, setTo, 'erase-to')}
        <label class="control grow">
          <span>Type the hostname to confirm</span>
          <input value={confirm} data-testid="erase-confirm" onInput={(e) => setConfirm((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="danger" data-testid="erase-button" disabled={confirm !== hostname || !from || !to}>
          Delete data
        </button>
      </div>
      <Outcome outcome={status} />
    </form>
  );
}

export function DataPanels({ hostname }: { hostname: string }) {
  // retention_months and the last purge are in the site's setup, not its metadata (the spec fixes the site's fields).
  const setup = useApi<DataSetup>(`${sitePath(hostname)}/setup`);
  return (
    <>
      <Panel title="Data retention" id="retention-settings">
        <Load state={setup} label="the retention">
          {(d) => <Retention key={hostname} hostname={hostname} setup={d} onSaved={setup.reload} />}
        </Load>
      </Panel>
      <Panel title="Delete data" id="erase-data">
        <EraseData hostname={hostname} />
      </Panel>
    </>
  );
}
