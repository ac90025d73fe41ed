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
import { TrafficChart, type Forecast, type SeriesPoint } from '../components/traffic-chart.tsx';
import { ReportControls } from '../components/report-controls.tsx';
import { CsvButton } from '../components/csv-button.tsx';
import { csvFileName, seriesCsv } from '../csv.ts';
import { formatChange, formatDuration, formatNumber } from '../format.ts';
import { apiQuery, chartInterval, withFilter, withTab, type ReportState } from '../report-state.ts';
import { EventMetadata, OutboundLinks } from './event-metadata.tsx';
import { GoalSummary, useGoalNames } from './goals.tsx';
import { LivePanel } from './live.tsx';
import { BreakdownPanel, PANELS, panelKey } from './panels.tsx';

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
            dim={state.tabs?.[panelKey(p.title)]}
            onChoose={(dim) => setState(withTab(state, panelKey(p.title), dim))}
            visitors={overview.data?.totals.visitors ?? null}
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
