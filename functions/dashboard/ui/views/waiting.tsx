/**
 * A verified web site with nothing in its history yet: instead of empty panels,
 * "Waiting for the first pageview" with the snippets to install. Whether the
 * site has any data is a one-row pages breakdown and, when it has no page, a
 * one-row events breakdown (a site may send events alone: server-side beacons,
 * followed `/r` redirects): over the last 31 days, then (none there) over the
 * API's longest range, so older and imported history counts too. While it waits, the page asks the short range again every few
 * seconds and shows the overview by itself once a pageview has come; it stops
 * asking when it leaves the view. A site once seen with data is remembered for
 * the tab, and not asked again.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, sitePath, useApi } from '../api.ts';
import { Load, Panel } from '../components/panel.tsx';
import { Snippets, type Setup } from '../components/snippets.tsx';
import { tabStorage } from '../tab-storage.ts';
import { MAX_RANGE_SECONDS } from '#domain/reports/time.ts';

export const POLL_MS = 3000;
const RECENT_SECONDS = 31 * 86_400;
const seenKey = (hostname: string) => `tt.has-data.${hostname}`;

/** The site's busiest page (or event, `dim` events) over the `seconds` before now. */
export function firstRowPath(hostname: string, nowSeconds: number, seconds: number, dim: 'pages' | 'events' = 'pages'): string {
  const to = Math.floor(nowSeconds) + 60;
  return `${sitePath(hostname)}/breakdown?${new URLSearchParams({ dim, limit: '1', from: String(to - seconds), to: String(to) })}`;
}

/** Whether the site has a pageview, or else an event, in the `seconds` before now. */
async function hasData(hostname: string, seconds: number, signal: AbortSignal): Promise<boolean> {
  for (const dim of ['pages', 'events'] as const) {
    const { rows } = await api<{ rows: unknown[] }>(firstRowPath(hostname, Date.now() / 1000, seconds, dim), { signal });
    if (rows.length > 0) return true;
  }
  return false;
}

/** Whether the site has no pageview at all: null until known (or when the first read failed), then asked again while true. */
function useNoHistory(hostname: string): boolean | null {
  const known = tabStorage.getItem(seenKey(hostname)) !== null;
  const [empty, setEmpty] = useState<boolean | null>(known ? false : null);
  useEffect(() => {
    if (known) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waiting = false;
    const check = async () => {
      try {
        const seen = (await hasData(hostname, RECENT_SECONDS, controller.signal)) || (!waiting && (await hasData(hostname, MAX_RANGE_SECONDS, controller.signal)));
        if (seen) tabStorage.setItem(seenKey(hostname), '1');
        waiting = !seen;
        setEmpty(waiting);
      } catch {
        // A failed first read shows the overview (its panels say what fails); a failed later one waits for the next.
      }
      if (waiting && !controller.signal.aborted) timer = setTimeout(() => void check(), POLL_MS);
    };
    void check();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [hostname, known]);
  return empty;
}

function Waiting({ hostname }: { hostname: string }) {
  const setup = useApi<Setup>(`${sitePath(hostname)}/setup`);
  return (
    <Panel title="Waiting for the first pageview" id="waiting">
      <div class="stack" data-testid="waiting">
        <p role="status">This site is verified, but no pageview has arrived yet. This page shows the reports by itself as soon as one does.</p>
        <Load state={setup} label="the snippet">
          {(s) => (
            <div class="stack">
              <Snippets setup={s} />
            </div>
          )}
        </Load>
      </div>
    </Panel>
  );
}

/** `children` (the overview) unless the site has no pageview at all; then the waiting panel until it has one. */
export function UntilFirstPageview({ hostname, children }: { hostname: string; children: ComponentChildren }) {
  return useNoHistory(hostname) === true ? <Waiting hostname={hostname} /> : <>{children}</>;
}
