/** Page routing on the History API: links stay real links (open in a new tab, copy), clicks stay in the page. */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(url: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const l of listeners) l();
  if (!replace) window.scrollTo(0, 0);
}

/** The current path and query; re-renders on navigation and on back/forward. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const changed = () => setTick((n) => n + 1);
    listeners.add(changed);
    window.addEventListener('popstate', changed);
    return () => {
      listeners.delete(changed);
      window.removeEventListener('popstate', changed);
    };
  }, []);
  return { path: location.pathname, search: new URLSearchParams(location.search) };
}

/** An anchor's click handler: plain left clicks navigate in the page; modified clicks do what the browser does. */
export function linkClick(e: MouseEvent): void {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
  e.preventDefault();
  navigate(a.getAttribute('href') ?? '/');
}

export type Route =
  | { view: 'sites' }
  | { view: 'login' }
  /** Who is signed in, and the account's management keys. */
  | { view: 'account' }
  | { view: 'site'; hostname: string; tab: SiteTab }
  | { view: 'share'; hostname: string }
  /** A secret share link's page, `/share/link/{slug}`, or the same framed by another site, `/embed/{slug}`. */
  | { view: 'share-link'; slug: string; embed: boolean }
  | { view: 'missing' };

export const SITE_TABS = ['overview', 'goals', 'retention', 'search', 'api', 'crawlers', 'imports', 'settings'] as const;
export type SiteTab = (typeof SITE_TABS)[number];

export function routeOf(path: string): Route {
  if (path === '/') return { view: 'sites' };
  if (path === '/login') return { view: 'login' };
  if (path === '/account') return { view: 'account' };
  const site = /^\/sites\/([^/]+)(?:\/([a-z]+))?$/.exec(path);
  if (site) {
    const tab = (site[2] ?? 'overview') as SiteTab;
    return SITE_TABS.includes(tab) ? { view: 'site', hostname: decodeURIComponent(site[1] as string), tab } : { view: 'missing' };
  }
  const link = /^\/(share\/link|embed)\/([^/]+)$/.exec(path);
  if (link) return { view: 'share-link', slug: decodeURIComponent(link[2] as string), embed: link[1] === 'embed' };
  const share = /^\/share\/([^/]+)$/.exec(path);
  if (share) return { view: 'share', hostname: decodeURIComponent(share[1] as string) };
  return { view: 'missing' };
}

export const siteUrl = (hostname: string, tab: SiteTab = 'overview', query = '') =>
  `/sites/${encodeURIComponent(hostname)}${tab === 'overview' ? '' : `/${tab}`}${query ? `?${query}` : ''}`;
