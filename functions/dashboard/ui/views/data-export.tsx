/**
 * The settings' "Export data" panel (issue 42): the site's raw rows for a
 * period, as CSV or NDJSON, events or API requests, through
 * GET /api/sites/{hostname}/export. The page signs its calls with a bearer
 * token, which a plain link cannot send, so a button fetches the file with
 * the token and saves it from a Blob (`<a download>` over an object URL; the
 * browser holds the file until it is saved). On AWS the export is served on
 * its own streaming Function URL (config.json `exportUrl`).
 */
import { useState } from 'preact/hooks';
import { exportFileName } from '#domain/export/file-name.ts';
import type { ExportFormat, ExportSeries } from '#domain/export/columns.ts';
import { ApiError } from '../api.ts';
import { loadConfig, requireSignIn, tokenOrRenewed } from '../auth.ts';
import { downloadBlob } from '../components/csv-button.tsx';
import { Outcome, Panel } from '../components/panel.tsx';
import { PeriodSelect } from '../components/report-controls.tsx';
import { stateDays, type Period, type ReportState } from '../report-state.ts';

const SERIES_LABELS: Record<ExportSeries, string> = { events: 'Pageviews and events', api: 'API requests' };
const FORMAT_LABELS: Record<ExportFormat, string> = { csv: 'CSV', ndjson: 'NDJSON' };

/** Fetches the export with the owner's token and saves it; the API's refusal text when it refuses. */
async function download(hostname: string, q: { series: ExportSeries; format: ExportFormat; fromDay: string; toDay: string; tz: string }): Promise<string> {
  const token = await tokenOrRenewed();
  if (!token) {
    requireSignIn();
    throw new ApiError(401, 'signing in');
  }
  const base = ((await loadConfig()).exportUrl ?? '').replace(/\/$/, '');
  const query = new URLSearchParams({ series: q.series, format: q.format, from: q.fromDay, to: q.toDay, tz: q.tz });
  const r = await fetch(`${base}/api/sites/${encodeURIComponent(hostname)}/export?${query}`, { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
  if (!r.ok) {
    const body = (await r.json().catch(() => ({}))) as { error?: string };
    throw new ApiError(r.status, body.error ?? `request failed (${r.status})`);
  }
  const name = exportFileName(hostname, q);
  downloadBlob(name, await r.blob());
  return name;
}

export function DataExport({ hostname, kind, state }: { hostname: string; kind: 'web' | 'api'; state: ReportState }) {
  const [period, setPeriod] = useState<Period>(state.period);
  const initial = stateDays(state, Date.now() / 1000);
  const [custom, setCustom] = useState({ from: initial.from, to: initial.to });
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ error: boolean; text: string } | null>(null);
  const days = period === 'custom' ? custom : stateDays({ ...state, period, from: null, to: null }, Date.now() / 1000);
  const series: ExportSeries[] = kind === 'api' ? ['api'] : ['events', 'api'];
  const start = async (s: ExportSeries, format: ExportFormat) => {
    setBusy(true);
    setOutcome({ error: false, text: `Preparing the ${FORMAT_LABELS[format]} file…` });
    try {
      const name = await download(hostname, { series: s, format, fromDay: days.from, toDay: days.to, tz: state.tz });
      setOutcome({ error: false, text: `Downloaded ${name}.` });
    } catch (e) {
      setOutcome({ error: true, text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Panel title="Export data" id="export">
      <p class="note">
        Every stored row of the period ({days.from} to {days.to}, {state.tz}), collected and imported, for your own analysis. Visitor hashes never leave the service.
      </p>
      <div class="control-row">
        <PeriodSelect
          value={period}
          onChange={(p) => {
            setPeriod(p);
            setOutcome(null);
          }}
        />
        {period === 'custom' && (
          <>
            <label class="control">
              <span>First day</span>
              <input type="date" value={custom.from} onChange={(e) => (setCustom({ ...custom, from: (e.currentTarget as HTMLInputElement).value }), setOutcome(null))} />
            </label>
            <label class="control">
              <span>Last day</span>
              <input type="date" value={custom.to} onChange={(e) => (setCustom({ ...custom, to: (e.currentTarget as HTMLInputElement).value }), setOutcome(null))} />
            </label>
          </>
        )}
      </div>
      {series.map((s) => (
        <div class="export-row" key={s}>
          <span>{SERIES_LABELS[s]}</span>
          {(['csv', 'ndjson'] as const).map((format) => (
            <button type="button" key={format} disabled={busy} aria-label={`Export ${SERIES_LABELS[s].toLowerCase()} as ${FORMAT_LABELS[format]}`} onClick={() => void start(s, format)}>
              {FORMAT_LABELS[format]}
            </button>
          ))}
        </div>
      ))}
      <Outcome outcome={outcome} />
    </Panel>
  );
}
