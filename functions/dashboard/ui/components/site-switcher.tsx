/**
 * The site view's switcher: the account's sites (GET /api/sites); choosing one opens the same
 * view of it with the same period, timezone and chart buckets. Filters stay behind: they name
 * pages and sources of the site they were set on.
 */
import { useApi } from '../api.ts';
import { browserTimezone, readState, writeState } from '../report-state.ts';
import { navigate, siteUrl, type SiteTab } from '../router.ts';
import type { SiteInfo } from '../views/sites.tsx';

/** The URL of `tab` of `hostname` with the report state of `search`, less its filters. */
export function switchedSiteUrl(hostname: string, tab: SiteTab, search: URLSearchParams): string {
  const tz = browserTimezone();
  return siteUrl(hostname, tab, writeState({ ...readState(search, tz), filters: [] }, tz));
}

export function SiteSwitcher({ hostname, tab, search }: { hostname: string; tab: SiteTab; search: URLSearchParams }) {
  const sites = useApi<{ sites: SiteInfo[] }>('/api/sites');
  const list = sites.data?.sites ?? [];
  // One site: nothing to switch to.
  if (list.length < 2) return null;
  return (
    <label class="control switcher">
      <span>Site</span>
      <select value={hostname} data-testid="site-switcher" onChange={(e) => navigate(switchedSiteUrl((e.currentTarget as HTMLSelectElement).value, tab, search))}>
        {list.map((s) => (
          <option key={s.hostname} value={s.hostname}>
            {s.display_name && s.display_name !== s.hostname ? `${s.display_name} (${s.hostname})` : s.hostname}
          </option>
        ))}
      </select>
    </label>
  );
}
