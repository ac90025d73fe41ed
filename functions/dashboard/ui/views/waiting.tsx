/**
 * A verified web site with nothing in its history yet: instead of empty panels,
 * "Waiting for the first pageview" with the snippets to install. The page asks
 * every few seconds whether a pageview has arrived (one-row pages breakdown over
 * the API's longest range, so imported history counts too) and shows the
 * overview by itself once one has; it stops asking when it leaves the view.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, sitePath, useApi } from '../api.ts';
import { Load, Panel } from '../components/panel.tsx';
import { Snippets, type Setup } from '../components/snippets.tsx';
import { MAX_RANGE_SECONDS } from '#domain/reports/time.ts';

export const POLL_MS = 3000;

/** The site's busiest page over the longest range the API reads, ending now. */
export function historyPath(hostname: string, nowSeconds: number): string {
  const to = Math.floor(nowSeconds) + 60;
  return `${sitePath(hostname)}/breakdown?${new URLSearchParams({ dim: 'pages', limit: '1', from: String(to - MAX_RANGE_SECONDS), to: String(to) })}`;
}

/** Whether the site has no pageview at all: null until known (or when the first read failed), then asked again while true. */
function useNoHistory(hostname: string): boolean | null {
  const [empty, setEmpty] = useState<boolean | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waiting = false;
    const check = async () => {
      try {
        const { rows } = await api<{ rows: unknown[] }>(historyPath(hostname, Date.now() / 1000), { signal: controller.signal });
        waiting = rows.length === 0;
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
  }, [hostname]);
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
