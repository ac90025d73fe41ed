/**
 * The live panel of a site (owners only): visitors of the last 5 minutes, a
 * 15-minute sparkline, and the pages and sources of the last 30 minutes,
 * from the live stream (GET /api/live/{hostname}) through EventSource. Each
 * connection takes a new single-use ticket (EventSource sends no
 * Authorization header); when a stream ends (its time limit) or drops, the
 * panel gets a new ticket and connects again, waiting longer after each
 * failure. Leaving the view closes the stream. The stream follows the
 * report's filters (its `filter` parameter); a change of filters reconnects.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { loadConfig } from '../auth.ts';
import { Panel } from '../components/panel.tsx';
import { Sparkline } from '../components/sparkline.tsx';
import { formatNumber } from '../format.ts';
import { BreakdownList } from '../components/breakdown.tsx';
import { DIRECT_NONE } from '../labels.ts';
import { formatFilter, type FilterClause } from '#domain/reports/filter.ts';

interface LiveMinute {
  t: number;
  visitors: number;
  pageviews: number;
}

interface LiveCount {
  name: string;
  visitors: number;
}

interface LiveUpdate {
  visitors_5m: number;
  pages: LiveCount[];
  sources: LiveCount[];
  minutes: LiveMinute[];
}

type Status = 'connecting' | 'live' | 'reconnecting' | 'paused';

interface LiveState {
  status: Status;
  history: LiveMinute[];
  update: LiveUpdate | null;
  /** A refusal that reconnecting will not change (the limit of open streams, an unverified site). */
  refusal: string | null;
}

const HISTORY_MINUTES = 15;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/** The history with the update's minutes put in (replacing those it already has), the last 15 kept. */
function merged(history: readonly LiveMinute[], minutes: readonly LiveMinute[]): LiveMinute[] {
  const byMinute = new Map(history.map((m) => [m.t, m]));
  for (const m of minutes) byMinute.set(m.t, m);
  return [...byMinute.values()].sort((a, b) => a.t - b.t).slice(-HISTORY_MINUTES);
}

/** Whether the page is visible (not a background tab or a minimized window). */
function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const changed = () => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);
  return visible;
}

/**
 * The stream's state, connected while the view is shown in a visible page: a background tab
 * closes its stream, so it holds none of the account's five, and connects again when shown.
 */
function useLiveStream(hostname: string, filter: string): LiveState {
  const [state, setState] = useState<LiveState>({ status: 'connecting', history: [], update: null, refusal: null });
  const visible = usePageVisible();
  useEffect(() => {
    if (!visible) {
      setState((s) => ({ ...s, status: 'paused' }));
      return;
    }
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let wait = FIRST_RETRY_MS;
    let stopped = false;
    const again = (ms: number) => {
      source?.close();
      if (stopped) return;
      setState((s) => ({ ...s, status: 'reconnecting' }));
      retry = setTimeout(() => void connect(), ms);
    };
    const connect = async () => {
      try {
        const base = ((await loadConfig()).liveUrl ?? '').replace(/\/$/, '');
        const path = `${base}/api/live/${encodeURIComponent(hostname)}`;
        const { ticket } = await api<{ ticket: string }>(`${path}/ticket`, { method: 'POST' });
        if (stopped) return;
        source = new EventSource(`${path}?ticket=${encodeURIComponent(ticket)}${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`);
        source.addEventListener('history', (e) => setState((s) => ({ ...s, history: JSON.parse((e as MessageEvent<string>).data) as LiveMinute[] })));
        source.addEventListener('update', (e) => {
          const update = JSON.parse((e as MessageEvent<string>).data) as LiveUpdate;
          wait = FIRST_RETRY_MS;
          setState((s) => ({ status: 'live', history: merged(s.history, update.minutes), update, refusal: null }));
        });
        // The stream's time limit: a new one at once.
        source.addEventListener('end', () => again(0));
        source.onerror = () => {
          again(wait);
          wait = Math.min(wait * 2, MAX_RETRY_MS);
        };
      } catch (e) {
        if (e instanceof ApiError && e.status !== 401 && e.status < 500) setState((s) => ({ ...s, refusal: e.message }));
        again(wait);
        wait = Math.min(wait * 2, MAX_RETRY_MS);
      }
    };
    void connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [hostname, filter, visible]);
  return state;
}

function LiveList({ title, rows, testId }: { title: string; rows: readonly LiveCount[]; testId: string }) {
  return (
    <div data-testid={testId}>
      <h3>{title}</h3>
      <BreakdownList rows={rows} filterDim={null} valueLabel={null} emptyName={DIRECT_NONE} emptyText="Nobody in the last 30 minutes." />
    </div>
  );
}

const STATUS_TEXT: Record<Status, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', paused: 'Paused while the tab is hidden' };

export function LivePanel({ hostname, filters = [] }: { hostname: string; filters?: readonly FilterClause[] }) {
  const { status, history, update, refusal } = useLiveStream(hostname, formatFilter(filters));
  const status_ = (
    <span class={`live-status ${status}`} role="status" data-testid="live-status">
      {refusal ?? STATUS_TEXT[status]}
    </span>
  );
  return (
    <Panel title="Live" id="live" actions={status_}>
      <div class="live">
        <dl class="stats">
          <div class="stat" data-testid="live-visitors">
            <dt>Visitors, last 5 minutes</dt>
            <dd>
              <span class="stat-value">{update ? formatNumber(update.visitors_5m) : '—'}</span>
            </dd>
          </div>
          <div class="stat" data-testid="live-sparkline">
            <dt>Visitors per minute, last 15 minutes</dt>
            <dd>
              <Sparkline values={history.map((m) => m.visitors)} label={`Visitors per minute: ${history.map((m) => m.visitors).join(', ')}`} />
            </dd>
          </div>
        </dl>
        <div class="grid">
          <LiveList title="Pages, last 30 minutes" rows={update?.pages ?? []} testId="live-pages" />
          <LiveList title="Sources, last 30 minutes" rows={update?.sources ?? []} testId="live-sources" />
        </div>
      </div>
    </Panel>
  );
}
