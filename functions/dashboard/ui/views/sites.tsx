/**
 * The account's sites, pinned first as the API lists them: each with its
 * verification state, and for verified sites a 30-day sparkline and totals
 * from the sites summary; and a form to add a site.
 */
import { useEffect, useState } from 'preact/hooks';
import { currentToken } from '../auth.ts';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { DigestPanel } from './digest.tsx';
import { Sparkline } from '../components/sparkline.tsx';
import { formatNumber } from '../format.ts';
import { linkClick, navigate, siteUrl } from '../router.ts';

export interface SiteInfo {
  hostname: string;
  display_name: string;
  is_public: boolean;
  kind: 'web' | 'api';
  verified_at?: string | null;
  pinned_at?: string | null;
  /** Owner reads: months the rows are kept (issue 42). */
}

interface SummaryItem {
  hostname: string;
  live: number;
  days: { day: string; pageviews: number; visitors: number }[];
  api_days?: { day: string; requests: number; server_errors: number }[];
}

/** The last 30 days of one daily number, zero-filled, oldest first (the summary's days are sparse). */
function daily<D extends { day: string }>(days: readonly D[], value: (d: D) => number): number[] {
  const byDay = new Map(days.map((d) => [d.day, value(d)]));
  const out: number[] = [];
  const now = Date.now();
  for (let i = 29; i >= 0; i--) out.push(byDay.get(new Date(now - i * 86_400_000).toISOString().slice(0, 10)) ?? 0);
  return out;
}

function AddSite({ onAdded }: { onAdded: (hostname: string) => void }) {
  const [hostname, setHostname] = useState('');
  const [kind, setKind] = useState<'web' | 'api'>('web');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<{ hostname: string }>('/api/sites', { method: 'POST', body: { hostname, kind } });
      onAdded(created.hostname);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not add the site.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="add-site" onSubmit={submit}>
      <label class="control grow">
        <span>Hostname</span>
        <input name="hostname" required placeholder="example.com" autocomplete="off" value={hostname} onInput={(e) => setHostname((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <label class="control">
        <span>Kind</span>
        <select value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as 'web' | 'api')}>
          <option value="web">Website</option>
          <option value="api">API</option>
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Add site
      </button>
      <FieldError message={error} />
    </form>
  );
}

export function SiteIcon({ hostname, signedIn = true }: { hostname: string; signedIn?: boolean }) {
  // <img> requests carry no Authorization header: public icons load as they are, owners' through a blob.
  const icon = useIcon(hostname, signedIn);
  return <img class="site-icon" src={icon} alt="" width={20} height={20} />;
}

const PLACEHOLDER = 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><rect width="20" height="20" rx="4" fill="#cbd5e1"/></svg>');

function useIcon(hostname: string, signedIn: boolean): string {
  const [src, setSrc] = useState(PLACEHOLDER);
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    void iconBlob(hostname, signedIn).then((blob) => {
      if (!blob || !live) return;
      url = URL.createObjectURL(blob);
      setSrc(url);
    });
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [hostname, signedIn]);
  return src;
}

/** The stored icon, or null (none yet, or not readable): the placeholder stays. */
async function iconBlob(hostname: string, signedIn: boolean): Promise<Blob | null> {
  const token = signedIn ? currentToken() : null;
  const r = await fetch(`${sitePath(hostname)}/icon`, { headers: token ? { Authorization: `Bearer ${token}` } : {} }).catch(() => null);
  return r && r.ok ? r.blob() : null;
}

export function SitesView() {
  const sites = useApi<{ sites: SiteInfo[] }>('/api/sites');
  const summary = useApi<{ sites: SummaryItem[] }>(`/api/sites/summary?tz=UTC`);
  const byHost = new Map((summary.data?.sites ?? []).map((s) => [s.hostname, s]));
  return (
    <main class="page">
      <h1>Sites</h1>
      <Panel title="Your sites" id="sites">
        <Load state={sites} label="sites">
          {(d) =>
            d.sites.length === 0 ? (
              <p class="empty">No sites yet: add your first one below.</p>
            ) : (
              <ul class="site-list">
                {d.sites.map((s) => {
                  const item = byHost.get(s.hostname);
                  const visitors = item ? item.days.reduce((n, day) => n + day.visitors, 0) : 0;
                  const pageviews = item ? item.days.reduce((n, day) => n + day.pageviews, 0) : 0;
                  const apiDays = item?.api_days ?? [];
                  const requests = apiDays.reduce((n, day) => n + day.requests, 0);
                  const serverErrors = apiDays.reduce((n, day) => n + day.server_errors, 0);
                  return (
                    <li key={s.hostname} class="site-card" data-testid={`site-${s.hostname}`}>
                      <a href={siteUrl(s.hostname, s.verified_at || s.kind === 'api' ? 'overview' : 'settings')} onClick={linkClick} class="site-name">
                        <SiteIcon hostname={s.hostname} />
                        <span>{s.display_name || s.hostname}</span>
                      </a>
                      <span class={`badge ${s.verified_at ? 'ok' : 'pending'}`}>{s.verified_at ? 'Verified' : 'Not verified'}</span>
                      {s.pinned_at && <span class="badge">Pinned</span>}
                      {s.kind === 'api' && item && (
                        <span class="site-numbers" data-testid={`api-days-${s.hostname}`}>
                          <Sparkline values={daily(apiDays, (d) => d.requests)} label={`API requests per day over 30 days for ${s.hostname}`} />
                          <span>
                            {formatNumber(requests)} requests · {formatNumber(serverErrors)} 5xx
                          </span>
                        </span>
                      )}
                      {s.kind !== 'api' && item && (
                        <span class="site-numbers">
                          <Sparkline values={daily(item.days, (d) => d.visitors)} label={`Visitors per day over 30 days for ${s.hostname}`} />
                          <span>
                            {formatNumber(visitors)} visitors · {formatNumber(pageviews)} pageviews · {formatNumber(item.live)} live
                          </span>
                        </span>
                      )}
                    </li>
                  );
                })}
              </ul>
            )
          }
        </Load>
      </Panel>
      <Panel title="Add a site" id="add-site">
        <AddSite
          onAdded={(hostname) => {
            sites.reload();
            navigate(siteUrl(hostname, 'settings'));
          }}
        />
      </Panel>
      {sites.data && <DigestPanel hostnames={sites.data.sites.map((s) => s.hostname)} />}
    </main>
  );
}
