/**
 * A site's API analytics (issue 36): totals against the previous period, the
 * requests and error-rate chart, the latency chart, and the routes, statuses,
 * methods and consumers tables whose rows filter the view (filters in the URL
 * as `afilter`); then the site's API keys and alert rules.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { LineChart, type Line } from '../components/line-chart.tsx';
import { ReportControls } from '../components/report-controls.tsx';
import { formatChange, formatNumber, formatTimestamp } from '../format.ts';
import { apiQuery, type ReportState } from '../report-state.ts';
import { navigate } from '../router.ts';
import { AlertRules } from './alert-rules.tsx';
import { Stat } from './overview.tsx';

interface Totals {
  requests: number;
  client_errors: number;
  server_errors: number;
  error_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  bytes_out: number;
}
interface ApiOverview {
  totals: Totals;
  previous: Totals;
  series: (Totals & { t: number })[];
  granularity: string;
}
interface ApiRow {
  name: string;
  requests: number;
  server_errors: number;
  error_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}
type ApiDim = 'route' | 'status' | 'method' | 'consumer';
type ApiFilter = { dim: ApiDim; value: string };

const TABLES: { dim: string; filter: ApiDim; title: string }[] = [
  { dim: 'routes', filter: 'route', title: 'Routes' },
  { dim: 'statuses', filter: 'status', title: 'Statuses' },
  { dim: 'methods', filter: 'method', title: 'Methods' },
  { dim: 'consumers', filter: 'consumer', title: 'Consumers' },
];

const ms = (v: number | null) => (v === null ? '—' : `${v < 10 ? v.toFixed(1) : formatNumber(v)} ms`);
const rate = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(v < 0.1 ? 2 : 1)}%`);
const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`);

/** `afilter` of the URL: `dim:value` clauses joined by `;`. */
function readFilters(search: URLSearchParams): ApiFilter[] {
  return (search.get('afilter') ?? '')
    .split(';')
    .filter(Boolean)
    .map((c) => ({ dim: c.slice(0, c.indexOf(':')) as ApiDim, value: decodeURIComponent(c.slice(c.indexOf(':') + 1)) }))
    .filter((f) => ['route', 'status', 'method', 'consumer'].includes(f.dim));
}
const writeFilters = (filters: ApiFilter[]) => filters.map((f) => `${f.dim}:${encodeURIComponent(f.value)}`).join(';');

function setFilters(search: URLSearchParams, filters: ApiFilter[]) {
  const q = new URLSearchParams(search);
  if (filters.length) q.set('afilter', writeFilters(filters));
  else q.delete('afilter');
  navigate(`${location.pathname}${q.size ? `?${q}` : ''}`);
}


function ApiTable({ hostname, query, table, onFilter }: { hostname: string; query: string; table: (typeof TABLES)[number]; onFilter: (f: ApiFilter) => void }) {
  const rows = useApi<{ rows: ApiRow[] }>(`${sitePath(hostname)}/api/breakdown?dim=${table.dim}&limit=10&${query}`);
  return (
    <Panel title={table.title} id={`api-${table.dim}`}>
      <Load state={rows} label={table.title.toLowerCase()}>
        {(d) =>
          d.rows.length === 0 ? (
            <p class="empty">No requests.</p>
          ) : (
            <table class="breakdown" data-testid={`api-${table.dim}`}>
              <thead>
                <tr>
                  <th scope="col">{table.title.replace(/s$/, '')}</th>
                  <th scope="col" class="num">Requests</th>
                  <th scope="col" class="num">5xx</th>
                  <th scope="col" class="num">p95</th>
                </tr>
              </thead>
              <tbody>
                {d.rows.map((r) => (
                  <tr key={r.name}>
                    <th scope="row">
                      <button type="button" class="link" title={`Show only ${r.name}`} onClick={() => onFilter({ dim: table.filter, value: r.name })}>
                        {r.name}
                      </button>
                    </th>
                    <td class="num">{formatNumber(r.requests)}</td>
                    <td class="num">{rate(r.error_rate)}</td>
                    <td class="num">{ms(r.p95_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Load>
    </Panel>
  );
}

export function ApiView({ hostname, state, setState, search }: { hostname: string; state: ReportState; setState: (s: ReportState) => void; search: URLSearchParams }) {
  const filters = readFilters(search);
  const q = apiQuery({ ...state, filters: [] }, Date.now() / 1000);
  if (filters.length) q.set('filter', writeFilters(filters));
  const query = q.toString();
  const overview = useApi<ApiOverview>(`${sitePath(hostname)}/api/overview?${query}`);
  const addFilter = (f: ApiFilter) => setFilters(search, [...filters.filter((x) => x.dim !== f.dim), f]);
  return (
    <div class="overview">
      <ReportControls state={{ ...state, filters: [] }} setState={(s) => setState({ ...s, filters: state.filters })} />
      {filters.length > 0 && (
        <ul class="chips" aria-label="API filters">
          {filters.map((f) => (
            <li key={f.dim}>
              {f.dim} is {f.value}{' '}
              <button type="button" aria-label={`Remove the ${f.dim} filter`} onClick={() => setFilters(search, filters.filter((x) => x.dim !== f.dim))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <Panel title="API requests" id="api-traffic">
        <Load state={overview} label="API requests">
          {(o) => <ApiCharts o={o} tz={state.tz} />}
        </Load>
      </Panel>
      <div class="grid">
        {TABLES.map((t) => (
          <ApiTable key={t.dim} hostname={hostname} query={query} table={t} onFilter={addFilter} />
        ))}
      </div>
      <SiteKeys hostname={hostname} />
      <AlertRules hostname={hostname} />
    </div>
  );
}

function ApiCharts({ o, tz }: { o: ApiOverview; tz: string }) {
  const t = useMemo(() => o.series.map((s) => s.t), [o]);
  const traffic: Line[] = useMemo(
    () => [
      { label: 'Requests', color: '#1d4ed8', values: o.series.map((s) => s.requests), format: formatNumber },
      { label: 'Error rate', color: '#b91c1c', values: o.series.map((s) => s.error_rate), right: true, format: rate },
    ],
    [o],
  );
  const latency: Line[] = useMemo(
    () => [
      { label: 'p50', color: '#047857', values: o.series.map((s) => s.p50_ms), format: ms },
      { label: 'p95', color: '#b45309', values: o.series.map((s) => s.p95_ms), format: ms },
      { label: 'p99', color: '#7e22ce', values: o.series.map((s) => s.p99_ms), format: ms },
    ],
    [o],
  );
  const { totals: c, previous: p } = o;
  return (
    <>
      <dl class="stats">
        <Stat testId="api-requests" label="Requests" value={formatNumber(c.requests)} change={formatChange(c.requests, p.requests)} />
        <Stat testId="api-error-rate" label="Error rate (5xx)" value={rate(c.error_rate)} change={formatChange(c.error_rate, p.error_rate)} />
        <Stat testId="api-p50" label="p50" value={ms(c.p50_ms)} />
        <Stat testId="api-p95" label="p95" value={ms(c.p95_ms)} change={formatChange(c.p95_ms, p.p95_ms)} />
        <Stat testId="api-p99" label="p99" value={ms(c.p99_ms)} />
        <Stat testId="api-errors" label="4xx / 5xx" value={`${formatNumber(c.client_errors)} / ${formatNumber(c.server_errors)}`} />
        <Stat testId="api-bytes" label="Sent" value={bytes(c.bytes_out)} />
      </dl>
      <LineChart t={t} lines={traffic} tz={tz} granularity={o.granularity} caption={`Requests and error rate per ${o.granularity}`} testId="api-series" />
      <LineChart t={t} lines={latency} tz={tz} granularity={o.granularity} caption={`Latency per ${o.granularity}`} testId="api-latency" />
    </>
  );
}

interface SiteKey {
  id: string;
  label: string;
  created_at: string;
  rotated_at: string | null;
  last_used_at: string | null;
}

/** A secret shown once, with a copy button. */
function Secret({ secret, onDone }: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>Copy this key now: you won't see it again.</p>
      <code data-testid="new-key">{secret}</code>{' '}
      <button type="button" onClick={() => navigator.clipboard?.writeText(secret).then(() => setCopied(true), () => setCopied(false))}>
        {copied ? 'Copied' : 'Copy'}
      </button>{' '}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function SiteKeys({ hostname }: { hostname: string }) {
  const keys = useApi<{ keys: SiteKey[] }>(`${sitePath(hostname)}/keys`);
  const [label, setLabel] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (call: () => Promise<{ key?: string }>) => {
    setError(null);
    try {
      const r = await call();
      if (r.key) setSecret(r.key);
      keys.reload();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'The request failed.');
    }
  };
  return (
    <Panel title="API keys" id="api-keys">
      <p class="note">A site API key sends request metrics to POST /api/ingest for this site only.</p>
      {secret && <Secret secret={secret} onDone={() => setSecret(null)} />}
      <Load state={keys} label="API keys">
        {(d) =>
          d.keys.length === 0 ? (
            <p class="empty">No API keys yet.</p>
          ) : (
            <ul class="key-list" data-testid="site-keys">
              {d.keys.map((k) => (
                <li key={k.id}>
                  <strong>{k.label || 'Unnamed key'}</strong> · created {formatTimestamp(k.created_at)}
                  {k.last_used_at ? ` · last used ${formatTimestamp(k.last_used_at)}` : ' · never used'}{' '}
                  <button type="button" onClick={() => act(() => api(`${sitePath(hostname)}/keys/${k.id}/rotate`, { method: 'POST' }))}>
                    Rotate
                  </button>{' '}
                  <button
                    type="button"
                    onClick={() => window.confirm(`Revoke "${k.label || 'Unnamed key'}"? Anything using it stops sending.`) && act(() => api(`${sitePath(hostname)}/keys/${k.id}`, { method: 'DELETE' }))}
                  >
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Load>
      <form
        class="add-site"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => api(`${sitePath(hostname)}/keys`, { method: 'POST', body: { label } })).then(() => setLabel(''));
        }}
      >
        <label class="control grow">
          <span>Label</span>
          <input name="label" maxLength={100} placeholder="production" value={label} onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Create key</button>
      </form>
      <FieldError message={error} />
    </Panel>
  );
}
