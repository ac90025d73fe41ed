/**
 * Crawlers (issue 41): AI and search crawler hits read hourly from a linked
 * Cloudflare zone over the last 7, 30 or 90 days (`days` in the URL) in the browser's timezone: hits per
 * day by category, the top crawlers and the most crawled pages; the link
 * flow (a token, the zones it reads, one picked), unlink, Sync now, and the
 * last sync's time and error. The token goes to the server in a header and
 * the link body only; it is never kept in the page.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { DaysPicker, daysParam, type DaysOption } from '../components/days-picker.tsx';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { LineChart } from '../components/line-chart.tsx';
import { formatNumber, formatTimestamp } from '../format.ts';
import { browserTimezone } from '../report-state.ts';

type Category = 'ai' | 'search' | 'other';
interface Link {
  zone_id: string;
  zone_name: string;
  linked_at: string;
  last_sync_at: string | null;
  last_error: string | null;
}
interface Report {
  rows: { name: string; category: Category; hits: number; pages: number }[];
  series: ({ day: string } & Record<Category, number>)[];
  link: Link | null;
}

const PERIODS: readonly DaysOption[] = [
  { days: 30, label: 'Last 30 days' },
  { days: 7, label: 'Last 7 days' },
  { days: 90, label: 'Last 90 days' },
];
const CATEGORY_LABELS: Record<Category, string> = { ai: 'AI', search: 'Search', other: 'Other bots' };
const CATEGORY_COLORS = { ai: '#7e22ce', search: '#047857' } as const;

const failure = (err: unknown, fallback: string) => (err instanceof ApiError ? err.message : fallback);

function LinkForm({ hostname, onLinked }: { hostname: string; onLinked: () => void }) {
  const [token, setToken] = useState('');
  const [zones, setZones] = useState<{ id: string; name: string }[] | null>(null);
  const [zone, setZone] = useState('');
  const [error, setError] = useState<string | null>(null);
  const findZones = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const found = (await api<{ zones: { id: string; name: string }[] }>('/api/cloudflare/zones', { headers: { 'X-Cloudflare-Token': token } })).zones;
      setZones(found);
      setZone(found[0]?.id ?? '');
    } catch (err) {
      setError(failure(err, 'Could not list the zones.'));
    }
  };
  const link = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api(`${sitePath(hostname)}/crawlers/link`, { method: 'POST', body: { token, zone_id: zone } });
      setToken('');
      onLinked();
    } catch (err) {
      setError(failure(err, 'Could not link the zone.'));
    }
  };
  return (
    <form class="stack" onSubmit={zones && zones.length > 0 ? link : findZones}>
      <p>Link a Cloudflare zone to see which AI and search crawlers fetch this site. Create an API token with Zone Read and Analytics Read on the zone.</p>
      <div class="control">
        <label for="cf-token">Cloudflare API token</label>
        <input id="cf-token" type="password" autocomplete="off" required value={token} onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)} />
      </div>
      {zones && zones.length > 0 && (
        <div class="control">
          <label for="cf-zone">Zone</label>
          <select id="cf-zone" value={zone} onChange={(e) => setZone((e.currentTarget as HTMLSelectElement).value)}>
            {zones.map((z) => (
              <option key={z.id} value={z.id}>
                {z.name}
              </option>
            ))}
          </select>
        </div>
      )}
      {zones && zones.length === 0 && <p class="note">This token reads no zones.</p>}
      <button type="submit">{zones && zones.length > 0 ? 'Link zone' : 'Find zones'}</button>
      <FieldError message={error} />
    </form>
  );
}

function LinkStatus({ hostname, link, onChanged }: { hostname: string; link: Link; onChanged: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (method: 'POST' | 'DELETE', path: string, fallback: string) => {
    setError(null);
    setBusy(true);
    try {
      await api(`${sitePath(hostname)}/crawlers/${path}`, { method, body: method === 'POST' ? {} : undefined });
      onChanged();
    } catch (err) {
      setError(failure(err, fallback));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="stack" data-testid="crawler-link">
      <p>
        Linked to Cloudflare zone <strong>{link.zone_name}</strong>. Last sync: {link.last_sync_at ? formatTimestamp(link.last_sync_at) : 'not yet'}.
      </p>
      {link.last_error && (
        <p class="error" role="alert" data-testid="crawler-sync-error">
          The last sync failed: {link.last_error}
        </p>
      )}
      <div class="control-row">
        <button type="button" disabled={busy} onClick={() => void act('POST', 'sync', 'Could not sync.')}>
          Sync now
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => void act('DELETE', 'link', 'Could not unlink.')}>
          Unlink
        </button>
      </div>
      <FieldError message={error} />
    </div>
  );
}

function RowsTable({ caption, first, rows, testId }: { caption: string; first: string; rows: Report['rows']; testId: string }) {
  if (rows.length === 0) return <p class="note">No crawler hits in this period.</p>;
  return (
    <table data-testid={testId}>
      {/* The panel's heading shows it: the caption names the table for screen readers only. */}
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col">Category</th>
          <th scope="col">Hits</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.name}>
            <td>{r.name}</td>
            <td>{CATEGORY_LABELS[r.category]}</td>
            <td>{formatNumber(r.hits)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CrawlersView({ hostname, search }: { hostname: string; search: URLSearchParams }) {
  const tz = browserTimezone();
  const days = daysParam(search, PERIODS);
  // From a whole hour (the hits' grain), so the query stays the same from one render to the next.
  const from = Math.floor(Date.now() / 3_600_000) * 3_600 - days * 86_400;
  const base = `${sitePath(hostname)}/crawlers?from=${from}&tz=${encodeURIComponent(tz)}`;
  const crawlers = useApi<Report>(base);
  const pages = useApi<Report>(`${base}&dim=pages`);
  const reload = () => {
    crawlers.reload();
    pages.reload();
  };
  return (
    <Load state={crawlers} label="crawler hits">
      {(report) => (
        <div class="stack">
          <Panel title="Cloudflare link">{report.link ? <LinkStatus hostname={hostname} link={report.link} onChanged={reload} /> : <LinkForm hostname={hostname} onLinked={reload} />}</Panel>
          {report.link && (
            <>
              <DaysPicker search={search} options={PERIODS} />
              <Panel title="Crawler hits per day">
                <LineChart
                  t={report.series.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000)}
                  lines={(['ai', 'search'] as const).map((c) => ({ label: CATEGORY_LABELS[c], color: CATEGORY_COLORS[c], values: report.series.map((d) => d[c]), format: formatNumber }))}
                  tz="UTC"
                  granularity="day"
                  caption="AI and search crawler hits per day"
                  testId="crawler-chart"
                />
              </Panel>
              <Panel title="Top crawlers">
                <RowsTable caption="Top crawlers" first="Crawler" rows={report.rows} testId="crawler-rows" />
              </Panel>
              <Panel title="Most crawled pages">
                <Load state={pages} label="crawled pages">
                  {(p) => <RowsTable caption="Most crawled pages" first="Page" rows={p.rows} testId="crawler-pages" />}
                </Load>
              </Panel>
            </>
          )}
        </div>
      )}
    </Load>
  );
}
