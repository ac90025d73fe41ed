/**
 * A site's traffic for the URL's period, timezone and filters: totals against
 * the previous period, the chart, and the breakdown panels, each row a filter.
 * Signed-in owners and the public share page (signedIn false) see the same;
 * owners also see the live panel, goals and outbound links. Each panel's
 * numbers download as CSV.
 */
import { useState } from 'preact/hooks';
import type { FilterDim } from '#domain/reports/filter.ts';
import { sitePath, useApi } from '../api.ts';
import { Load, Panel } from '../components/panel.tsx';
import { BreakdownList, type BreakdownRow } from '../components/breakdown.tsx';
import { TrafficChart, type Forecast, type SeriesPoint } from '../components/traffic-chart.tsx';
import { ReportControls } from '../components/report-controls.tsx';
import { CsvButton } from '../components/csv-button.tsx';
import { breakdownCsv, csvFileName, seriesCsv } from '../csv.ts';
import { formatChange, formatDuration, formatNumber } from '../format.ts';
import { apiQuery, chartInterval, withFilter, type ReportState } from '../report-state.ts';
import { EventMetadata, OutboundLinks } from './event-metadata.tsx';
import { GoalSummary, useGoalNames } from './goals.tsx';
import { LivePanel } from './live.tsx';

interface Totals {
  pageviews: number;
  visitors: number;
  avg_duration_s: number | null;
  avg_scroll: number | null;
}

interface Overview {
  totals: Totals;
  previous: Totals;
  series: (SeriesPoint & { duration_s: number | null; scrolled: number | null })[];
  forecast: Forecast | null;
  live: number;
  granularity: string;
  previous_range: { from: number; to: number };
}

/** A panel's choices: the breakdown dimension, its label, and the filter a row sets (none for screens). */
type Choice = { dim: string; label: string; filter: FilterDim | null; valueLabel?: string };

const PANELS: { title: string; choices: Choice[] }[] = [
  {
    title: 'Pages',
    choices: [
      { dim: 'pages', label: 'Top pages', filter: 'page' },
      { dim: 'entry_pages', label: 'Entry pages', filter: 'page', valueLabel: 'Entries' },
    ],
  },
  {
    title: 'Sources',
    choices: [
      { dim: 'sources', label: 'Sources', filter: 'source' },
      { dim: 'referrers', label: 'Referrers', filter: 'referrer' },
      { dim: 'utm_sources', label: 'UTM sources', filter: 'utm_source' },
      { dim: 'utm_mediums', label: 'UTM mediums', filter: 'utm_medium' },
      { dim: 'utm_campaigns', label: 'UTM campaigns', filter: 'utm_campaign' },
      { dim: 'utm_terms', label: 'UTM terms', filter: 'utm_term' },
      { dim: 'utm_contents', label: 'UTM contents', filter: 'utm_content' },
    ],
  },
  { title: 'Countries', choices: [{ dim: 'countries', label: 'Countries', filter: 'country' }] },
  {
    title: 'Devices',
    choices: [
      { dim: 'devices', label: 'Devices', filter: 'device' },
      { dim: 'browsers', label: 'Browsers', filter: 'browser' },
      { dim: 'os', label: 'Operating systems', filter: 'os' },
      { dim: 'screens', label: 'Screen sizes', filter: null },
      { dim: 'languages', label: 'Languages', filter: 'language' },
    ],
  },
  { title: 'Events', choices: [{ dim: 'events', label: 'Events', filter: 'event', valueLabel: 'Events' }] },
];

export function Stat({ label, value, change, testId }: { label: string; value: string; change?: string | null; testId: string }) {
  return (
    <div class="stat" data-testid={testId}>
      <dt>{label}</dt>
      <dd>
        <span class="stat-value">{value}</span>
        {change && <span class={`change ${change.startsWith('-') || change.startsWith('−') ? 'down' : 'up'}`}>{change} vs previous</span>}
      </dd>
    </div>
  );
}

function BreakdownPanel({ hostname, base, query, choices, title, signedIn, onFilter, onDetails }: {
  hostname: string;
  /** Where the reads go: the site's (`/api/sites/{hostname}`) or a share link's (`/api/share/{slug}`). */
  base: string;
  query: string;
  choices: Choice[];
  title: string;
  signedIn: boolean;
  onFilter: (dim: FilterDim, value: string) => void;
  /** The events panel's drill-down into an event's metadata (owners only). */
  onDetails?: (name: string) => void;
}) {
  const [index, setIndex] = useState(0);
  const choice = choices[index] as Choice;
  const state = useApi<{ rows: BreakdownRow[] }>(`${base}/breakdown?dim=${choice.dim}&limit=10&${query}`, signedIn);
  const selectId = `${title.toLowerCase()}-dim`;
  const rows = state.data?.rows;
  const csv = rows && (
    <CsvButton what={choice.label} filename={csvFileName(hostname, choice.label)} csv={() => breakdownCsv(rows, choice.valueLabel ?? 'Pageviews')} />
  );
  const actions =
    choices.length > 1 ? (
      <span class="panel-choice">
        <label for={selectId}>Show</label>
        <select id={selectId} value={String(index)} onChange={(e) => setIndex(Number((e.currentTarget as HTMLSelectElement).value))}>
          {choices.map((c, i) => (
            <option key={c.dim} value={String(i)}>
              {c.label}
            </option>
          ))}
        </select>
        {csv}
      </span>
    ) : (
      csv
    );
  return (
    <Panel title={title} actions={actions}>
      <div data-testid={`breakdown-${choice.dim}`}>
        <Load state={state} label={choice.label.toLowerCase()}>
          {(d) => (
            <BreakdownList
              rows={d.rows}
              filterDim={choice.filter}
              onFilter={onFilter}
              onDetails={choice.dim === 'events' ? onDetails : undefined}
              detailsLabel="Properties"
              valueLabel={choice.valueLabel}
              emptyName={choice.dim === 'pages' || choice.dim === 'referrers' ? '(direct / none)' : '(none)'}
            />
          )}
        </Load>
      </div>
    </Panel>
  );
}

/** The overview's query: the report's, with the chart's buckets. */
function overviewQuery(state: ReportState, nowSeconds: number, range?: { from: number; to: number }): string {
  const q = apiQuery(state, nowSeconds);
  if (range) {
    q.set('from', String(range.from));
    q.set('to', String(range.to));
  }
  const interval = chartInterval(state, nowSeconds);
  if (interval) q.set('interval', interval);
  return q.toString();
}

export function OverviewView({ hostname, base = sitePath(hostname), state, setState, signedIn }: {
  hostname: string;
  /** The reads' root: the site's, or a share link's (`/api/share/{slug}`). */
  base?: string;
  state: ReportState;
  setState: (s: ReportState) => void;
  signedIn: boolean;
}) {
  const now = Date.now() / 1000;
  const query = apiQuery(state, now).toString();
  const overview = useApi<Overview>(`${base}/overview?${overviewQuery(state, now)}`, signedIn);
  // The previous period's series, bucket for bucket, for the chart's comparison lines.
  const previousRange = overview.data?.previous_range;
  const previous = useApi<Overview>(previousRange ? `${base}/overview?${overviewQuery(state, now, previousRange)}` : null, signedIn);
  const series = overview.data?.series;
  const addFilter = (dim: FilterDim, value: string) => setState(withFilter(state, { dim, op: 'eq', value }));
  const [event, setEvent] = useState<string | null>(null);
  const goalNames = useGoalNames(hostname, signedIn);
  return (
    <div class="overview">
      <ReportControls state={state} setState={setState} valueNames={goalNames} menu={{ base, signedIn }} />
      <Panel title="Traffic" id="traffic" actions={series && <CsvButton what="the chart's numbers" filename={csvFileName(hostname, 'traffic')} csv={() => seriesCsv(series)} />}>
        <Load state={overview} label="traffic">
          {(o) => (
            <>
              <dl class="stats">
                <Stat testId="visitors" label="Visitors" value={formatNumber(o.totals.visitors)} change={formatChange(o.totals.visitors, o.previous.visitors)} />
                <Stat testId="pageviews" label="Pageviews" value={formatNumber(o.totals.pageviews)} change={formatChange(o.totals.pageviews, o.previous.pageviews)} />
                <Stat testId="duration" label="Median visit time" value={formatDuration(o.totals.avg_duration_s)} change={formatChange(o.totals.avg_duration_s, o.previous.avg_duration_s)} />
                <Stat testId="scroll" label="Scroll depth" value={o.totals.avg_scroll === null ? '—' : `${o.totals.avg_scroll}%`} />
                <Stat testId="live" label="Live now" value={formatNumber(o.live)} />
              </dl>
              <TrafficChart series={o.series} forecast={o.forecast} tz={state.tz} granularity={o.granularity} previous={previous.data?.series ?? []} />
            </>
          )}
        </Load>
      </Panel>
      {signedIn && <LivePanel hostname={hostname} filters={state.filters} />}
      {signedIn && <GoalSummary hostname={hostname} state={state} setState={setState} />}
      <div class="grid">
        {PANELS.map((p) => (
          <BreakdownPanel
            key={p.title}
            title={p.title}
            choices={p.choices}
            hostname={hostname}
            base={base}
            query={query}
            signedIn={signedIn}
            onFilter={addFilter}
            onDetails={signedIn ? setEvent : undefined}
          />
        ))}
      </div>
      {signedIn && event !== null && <EventMetadata key={event} hostname={hostname} event={event} query={query} onClose={() => setEvent(null)} />}
      {signedIn && <OutboundLinks hostname={hostname} query={query} />}
    </div>
  );
}
