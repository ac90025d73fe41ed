/** A site's page: its header (icon, name, tabs) and the tab the URL names; the share page is the same without the owner's tabs. */
import type { ComponentChildren } from 'preact';
import { ApiError, sitePath, useApi } from '../api.ts';
import { Load } from '../components/panel.tsx';
import { browserTimezone, readState, writeState, type ReportState } from '../report-state.ts';
import { linkClick, navigate, siteUrl, type SiteTab } from '../router.ts';
import { ImportsView } from './imports.tsx';
import { CrawlersView } from './crawlers.tsx';
import { ApiView } from './api.tsx';
import { OverviewView } from './overview.tsx';
import { GoalsView } from './goals.tsx';
import { RetentionView } from './retention.tsx';
import { SearchView } from './search.tsx';
import { SettingsView } from './settings.tsx';
import { SiteIcon, type SiteInfo } from './sites.tsx';
import { SiteSwitcher } from '../components/site-switcher.tsx';
import { ReportShortcuts } from '../components/shortcuts.tsx';
import { UntilFirstPageview } from './waiting.tsx';

const TAB_LABELS: Record<SiteTab, string> = { overview: 'Overview', goals: 'Goals', retention: 'Retention', search: 'Search', api: 'API', crawlers: 'Crawlers', imports: 'Imports', settings: 'Settings' };
/** An API site has no web reports nor imports: its overview is the API view. */
const API_SITE_TABS: readonly SiteTab[] = ['api', 'settings'];
/** Tabs whose reports take the period and filters: the keyboard shortcuts work there. */
const REPORT_TABS: readonly SiteTab[] = ['overview', 'goals', 'retention', 'api'];

/** The report state of the URL, and a setter that writes it back to the URL (a new history entry). */
export function useReportState(search: URLSearchParams): [ReportState, (s: ReportState) => void] {
  const tz = browserTimezone();
  const state = readState(search, tz);
  const set = (s: ReportState) => {
    const q = writeState(s, tz);
    navigate(`${location.pathname}${q ? `?${q}` : ''}`);
  };
  return [state, set];
}

/** `icon` false: no icon read (a share link's private site has none to anonymous readers). */
export function SiteHeader({ site, signedIn, icon = true, children }: { site: Pick<SiteInfo, 'hostname' | 'display_name'>; signedIn: boolean; icon?: boolean; children: ComponentChildren }) {
  return (
    <header class="site-head">
      <h1>
        {icon && <SiteIcon hostname={site.hostname} signedIn={signedIn} />}
        <span>{site.display_name || site.hostname}</span>
      </h1>
      {children}
    </header>
  );
}

/** A site the account does not have (mistyped, deleted, another account's): say so, and the way back. */
function UnknownSite({ hostname }: { hostname: string }) {
  return (
    <main class="page">
      <h1>No such site</h1>
      <p data-testid="unknown-site">
        Your account has no site {hostname}. <a href="/" onClick={linkClick}>Back to your sites</a>, where you can add it.
      </p>
    </main>
  );
}

export function SiteView({ hostname, tab, search }: { hostname: string; tab: SiteTab; search: URLSearchParams }) {
  const site = useApi<SiteInfo>(sitePath(hostname));
  const [state, setState] = useReportState(search);
  // Tabs keep the report state (period, filters) as the owner moves between them; settings takes it for its export.
  const query = search.toString();
  if (site.error instanceof ApiError && site.error.status === 404) return <UnknownSite hostname={hostname} />;
  return (
    <main class="page">
      <Load state={site} label="the site">
        {(s) => (
          <>
            <SiteHeader site={s} signedIn>
              <SiteSwitcher hostname={hostname} tab={tab} search={search} />
              <nav aria-label="Site views">
                <ul class="tabs">
                  {(s.kind === 'api' ? API_SITE_TABS : (Object.keys(TAB_LABELS) as SiteTab[])).map((t) => (
                    <li key={t}>
                      <a
                        href={siteUrl(hostname, t, REPORT_TABS.includes(t) || t === 'settings' ? query : '')}
                        onClick={linkClick}
                        aria-current={t === tab || (s.kind === 'api' && t === 'api' && tab === 'overview') ? 'page' : undefined}
                      >
                        {TAB_LABELS[t]}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
            </SiteHeader>
            <ReportShortcuts state={state} setState={setState} active={REPORT_TABS.includes(tab) && (s.kind === 'api' || Boolean(s.verified_at))} />
            {s.kind === 'api' && tab !== 'settings' ? (
              <ApiView hostname={hostname} state={state} setState={setState} search={search} />
            ) : tab === 'crawlers' ? (
              <CrawlersView hostname={hostname} search={search} />
            ) : !s.verified_at && tab !== 'settings' && tab !== 'imports' ? (
              <p class="note">
                This site is not verified yet, so it has no reports. <a href={siteUrl(hostname, 'settings')} onClick={linkClick}>Install the script and verify it</a>.
              </p>
            ) : tab === 'overview' ? (
              <UntilFirstPageview hostname={hostname}>
                <OverviewView hostname={hostname} state={state} setState={setState} signedIn />
              </UntilFirstPageview>
            ) : tab === 'goals' ? (
              <GoalsView hostname={hostname} state={state} setState={setState} />
            ) : tab === 'retention' ? (
              <RetentionView hostname={hostname} state={state} setState={setState} signedIn />
            ) : tab === 'search' ? (
              <SearchView hostname={hostname} search={search} />
            ) : tab === 'api' ? (
              <ApiView hostname={hostname} state={state} setState={setState} search={search} />
            ) : tab === 'imports' ? (
              <ImportsView hostname={hostname} />
            ) : (
              <SettingsView site={s} onSaved={site.reload} state={state} />
            )}
          </>
        )}
      </Load>
    </main>
  );
}

/** /share/{hostname}: the public reports of a verified public site, to anyone, read-only; nothing for any other site. */
export function ShareView({ hostname, search }: { hostname: string; search: URLSearchParams }) {
  const site = useApi<SiteInfo>(sitePath(hostname), false);
  const [state, setState] = useReportState(search);
  if (site.error) {
    return (
      <main class="page">
        <h1>Not available</h1>
        <p data-testid="not-public">There are no public statistics for {hostname}.</p>
      </main>
    );
  }
  return (
    <main class="page">
      <Load state={site} label="the site">
        {(s) => (
          <>
            <SiteHeader site={s} signedIn={false}>
              <p class="note">Public statistics</p>
            </SiteHeader>
            <ReportShortcuts state={state} setState={setState} active />
            <OverviewView hostname={hostname} state={state} setState={setState} signedIn={false} />
          </>
        )}
      </Load>
    </main>
  );
}
