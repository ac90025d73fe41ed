/**
 * The Search tab (issue 41): Google Search Console figures of the site
 * (clicks and impressions per day, top queries and pages with clicks,
 * impressions, CTR and position) and the link: start Google's consent,
 * pick a property, sync now, unlink, with the last sync's time and error.
 * Google sends the browser back to /account, where FinishGoogleConsent
 * completes the link and returns to this tab.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { DaysPicker, daysParam, type DaysOption } from '../components/days-picker.tsx';
import { LineChart, type Line } from '../components/line-chart.tsx';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { formatNumber, formatRate, formatTimestamp } from '../format.ts';
import { navigate, siteUrl } from '../router.ts';
import { Stat } from './overview.tsx';

interface Figures {
  clicks: number;
  impressions: number;
  ctr: number;
  position: number | null;
}
interface Link {
  property: string | null;
  linked_at: string;
  last_sync_at: string | null;
  last_error: string | null;
}
interface Stats {
  rows: (Figures & { name: string })[];
  totals: Figures;
  series: { date: string; clicks: number; impressions: number }[];
  link: Link | null;
}

const PERIODS: readonly DaysOption[] = [
  { days: 28, label: 'Last 28 days' },
  { days: 90, label: 'Last 3 months' },
  { days: 480, label: 'Last 16 months' },
];
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const message = (e: unknown, fallback: string) => (e instanceof ApiError ? e.message : fallback);
const position = (p: number | null) => (p === null ? '—' : p.toFixed(1));
/** Google names pages by their whole URL; the site's own origin adds nothing on a narrow screen. */
function pagePath(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}
const gsc = (hostname: string) => `${sitePath(hostname)}/gsc`;

function SearchTable({ title, rows, testId }: { title: string; rows: Stats['rows']; testId: string }) {
  return (
    <Panel title={title}>
      {rows.length === 0 ? (
        <p class="note">Nothing in this period.</p>
      ) : (
        <table class="list" data-testid={testId}>
          <thead>
            <tr>
              <th scope="col">{title === 'Queries' ? 'Query' : 'Page'}</th>
              <th scope="col" class="num">Clicks</th>
              <th scope="col" class="num">Impressions</th>
              <th scope="col" class="num">CTR</th>
              <th scope="col" class="num">Position</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name}>
                <td class="name" title={r.name}>
                  {title === 'Pages' ? pagePath(r.name) : r.name}
                </td>
                <td class="num">{formatNumber(r.clicks)}</td>
                <td class="num">{formatNumber(r.impressions)}</td>
                <td class="num">{formatRate(r.ctr)}</td>
                <td class="num">{position(r.position)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function SearchFigures({ hostname, days, stats }: { hostname: string; days: number; stats: Stats }) {
  const range = `from=${day(-days)}&to=${day(-1)}&limit=10`;
  const pages = useApi<Stats>(`${gsc(hostname)}?${range}&dim=pages`);
  const t = useMemo(() => stats.series.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000), [stats]);
  const lines: Line[] = useMemo(
    () => [
      { label: 'Clicks', color: '#1d4ed8', values: stats.series.map((d) => d.clicks), format: formatNumber },
      { label: 'Impressions', color: '#b45309', values: stats.series.map((d) => d.impressions), right: true, format: formatNumber },
    ],
    [stats],
  );
  const c = stats.totals;
  return (
    <>
      <dl class="stats">
        <Stat testId="gsc-clicks" label="Clicks" value={formatNumber(c.clicks)} />
        <Stat testId="gsc-impressions" label="Impressions" value={formatNumber(c.impressions)} />
        <Stat testId="gsc-ctr" label="CTR" value={formatRate(c.ctr)} />
        <Stat testId="gsc-position" label="Position" value={position(c.position)} />
      </dl>
      <LineChart t={t} lines={lines} tz="UTC" granularity="day" caption="Clicks and impressions per day" testId="gsc-series" />
      <div class="panels">
        <SearchTable title="Queries" rows={stats.rows} testId="gsc-queries" />
        <Load state={pages} label="the pages">
          {(p) => <SearchTable title="Pages" rows={p.rows} testId="gsc-pages" />}
        </Load>
      </div>
    </>
  );
}

function PickProperty({ hostname, onLinked }: { hostname: string; onLinked: () => void }) {
  const props = useApi<{ properties: { property: string; permission: string }[] }>(`${gsc(hostname)}/properties`);
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api(`${gsc(hostname)}/link`, { method: 'POST', body: { property: chosen } });
      onLinked();
    } catch (err) {
      setError(message(err, 'Could not link the property.'));
    }
  };
  return (
    <Load state={props} label="your Search Console properties">
      {(p) => (
        <form onSubmit={submit} class="inline-form">
          <label>
            Property
            <select value={chosen} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)} required>
              <option value="">Choose…</option>
              {p.properties.map((x) => (
                <option key={x.property} value={x.property}>
                  {x.property}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Link property</button>
          <FieldError message={error} />
        </form>
      )}
    </Load>
  );
}

/** At most this many sync calls per click (the daily sync pulls what is left). */
const MAX_SYNC_ROUNDS = 20;

function LinkPanel({ hostname, link, reload }: { hostname: string; link: Link | null; reload: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (action: () => Promise<void>, fallback: string) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(message(e, fallback));
    } finally {
      setBusy(false);
      reload();
    }
  };
  const start = () =>
    act(async () => {
      const { url } = await api<{ url: string }>(`/api/import-oauth/google/start?hostname=${encodeURIComponent(hostname)}`);
      location.assign(url);
    }, 'Could not start linking.');
  // Each call pulls about 20 s of months (a first sync has 16): call again until all are stored.
  const sync = () =>
    act(async () => {
      for (let round = 0; round < MAX_SYNC_ROUNDS; round++) {
        if ((await api<{ complete: boolean }>(`${gsc(hostname)}/sync`, { method: 'POST' })).complete) return;
      }
    }, 'The sync failed.');
  const unlink = () => act(() => api(`${gsc(hostname)}/link`, { method: 'DELETE' }).then(() => undefined), 'Could not unlink.');
  return (
    <Panel title="Google Search Console" id="gsc-link">
      {!link ? (
        <p>
          Not linked.{' '}
          <button type="button" onClick={start} disabled={busy}>
            Link Search Console
          </button>
        </p>
      ) : !link.property ? (
        <PickProperty hostname={hostname} onLinked={reload} />
      ) : (
        <div data-testid="gsc-link">
          <p>
            Linked to <strong>{link.property}</strong>. Last sync: {link.last_sync_at ? formatTimestamp(link.last_sync_at) : 'not yet'}.
          </p>
          {link.last_error && (
            <p class="field-error" data-testid="gsc-last-error">
              Last sync failed: {link.last_error}
            </p>
          )}
          <button type="button" onClick={sync} disabled={busy}>
            Sync now
          </button>{' '}
          <button type="button" onClick={unlink} disabled={busy}>
            Unlink
          </button>
        </div>
      )}
      <FieldError message={error} />
    </Panel>
  );
}

export function SearchView({ hostname, search }: { hostname: string; search: URLSearchParams }) {
  const days = daysParam(search, PERIODS);
  const stats = useApi<Stats>(`${gsc(hostname)}?from=${day(-days)}&to=${day(-1)}&dim=queries&limit=10`);
  return (
    <Load state={stats} label="Search Console figures">
      {(s) => (
        <>
          <LinkPanel hostname={hostname} link={s.link} reload={stats.reload} />
          {s.link?.property && <DaysPicker search={search} options={PERIODS} />}
          {(s.link?.property || s.series.length > 0) && <SearchFigures key={s.link?.last_sync_at ?? ''} hostname={hostname} days={days} stats={s} />}
        </>
      )}
    </Load>
  );
}

/** /account?code=…&state=…: Google sent the consent back; finish the link, then open the site's Search tab. */
export function FinishGoogleConsent({ search }: { search: URLSearchParams }) {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const q = new URLSearchParams({ code: search.get('code') ?? '', state: search.get('state') ?? '' });
    api<{ hostname: string }>(`/api/import-oauth/google/callback?${q.toString()}`).then(
      (r) => navigate(siteUrl(r.hostname, 'search'), { replace: true }),
      (e: unknown) => setError(message(e, 'Could not finish linking Search Console.')),
    );
  }, []);
  return error ? <FieldError message={error} /> : <p role="status">Linking Search Console…</p>;
}
