/**
 * Pageviews and visitors per bucket (uPlot on a canvas). Buckets after now
 * are not drawn; the current bucket is drawn as observed so far, and its
 * forecast is a ghost point of its own (never in place of the observed
 * value). The previous period runs beside as faint lines, bucket for bucket.
 * The legend shows values only while the pointer is on the chart. The canvas
 * is mirrored by a table for keyboards and screen readers (and for tests:
 * the same points, readable).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatBucket, formatNumber } from '../format.ts';
import { paletteColor } from './palette.ts';

export interface SeriesPoint {
  t: number;
  pageviews: number;
  visitors: number;
}

export interface Forecast {
  bucket: number;
  pageviews: number;
  visitors: number;
}


const BUCKET_NAMES: Record<string, string> = { hour: 'Hour', day: 'Day', week: 'Week of', month: 'Month' };

/** The buckets that have begun by `nowSeconds` (future ones hold nothing yet, not zero). */
export const begun = (series: readonly SeriesPoint[], nowSeconds: number): SeriesPoint[] => series.filter((p) => p.t <= nowSeconds);

/**
 * The chart's columns: x, observed pageviews and visitors (null after now), the forecast's ghost
 * pair (null but at its bucket), and the previous period's pair, aligned bucket for bucket.
 */
export function chartData(series: readonly SeriesPoint[], forecast: Forecast | null, nowSeconds: number, previous: readonly SeriesPoint[] = []): uPlot.AlignedData {
  const x = series.map((p) => p.t);
  const observed = (key: 'pageviews' | 'visitors') => series.map((p) => (p.t <= nowSeconds ? p[key] : null));
  const ghost = (key: 'pageviews' | 'visitors') => series.map((p) => (forecast && p.t === forecast.bucket ? forecast[key] : null));
  const before = (key: 'pageviews' | 'visitors') => series.map((_, i) => previous[i]?.[key] ?? null);
  return [x, observed('pageviews'), observed('visitors'), ghost('pageviews'), ghost('visitors'), before('pageviews'), before('visitors')];
}

const shown = (v: number | null) => (v === null ? '' : formatNumber(Math.round(v)));
const ghostPoints = { show: true, size: 8, width: 2, fill: 'transparent' };

/** uPlot's options: the observed pair, the forecast's ghost points, the previous period faint; the legend's values only while hovering. */
function chartOptions(el: HTMLDivElement, tz: string, granularity: string): uPlot.Options {
  const [PAGEVIEWS, VISITORS, axis] = [paletteColor('--accent', '#1d4ed8'), paletteColor('--ok', '#047857'), paletteColor('--axis', '#374151')];
  return {
    width: el.clientWidth || 600,
    height: 240,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
    cursor: { points: { size: 6 } },
    legend: { show: true, live: true },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, max * 1.1)] } },
    axes: [{ stroke: axis }, { stroke: axis, size: 56, values: (_u, ticks) => ticks.map((v) => formatNumber(v)) }],
    series: [
      { value: (_u, v) => (v === null ? '' : formatBucket(v, tz, granularity)) },
      { label: 'Pageviews', stroke: PAGEVIEWS, width: 2, fill: `${PAGEVIEWS}14`, value: (_u, v) => shown(v) },
      { label: 'Visitors', stroke: VISITORS, width: 2, value: (_u, v) => shown(v) },
      { label: 'Pageviews forecast', stroke: PAGEVIEWS, width: 0, points: ghostPoints, paths: () => null, value: (_u, v) => shown(v) },
      { label: 'Visitors forecast', stroke: VISITORS, width: 0, points: ghostPoints, paths: () => null, value: (_u, v) => shown(v) },
      { label: 'Pageviews before', stroke: `${PAGEVIEWS}59`, width: 1, dash: [4, 4], points: { show: false }, value: (_u, v) => shown(v) },
      { label: 'Visitors before', stroke: `${VISITORS}59`, width: 1, dash: [4, 4], points: { show: false }, value: (_u, v) => shown(v) },
    ],
    // The legend's values only while the pointer is on a bucket.
    hooks: { setCursor: [(u) => el.classList.toggle('hovering', u.cursor.idx !== null && u.cursor.idx !== undefined)] },
  };
}

export function TrafficChart({ series, forecast, tz, granularity, previous = [], nowSeconds = Date.now() / 1000 }: {
  series: readonly SeriesPoint[];
  forecast: Forecast | null;
  tz: string;
  granularity: string;
  /** The previous period's series (its own bucket times), drawn faint beside this one. */
  previous?: readonly SeriesPoint[];
  nowSeconds?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts = chartOptions(el, tz, granularity);
    const plot = new uPlot(opts, chartData(series, forecast, nowSeconds, previous), el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, forecast, tz, granularity, previous, nowSeconds]);
  return (
    <figure class="chart">
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <details class="chart-table">
        <summary>Show the chart's numbers</summary>
        <table data-testid="series">
          <caption>Pageviews and visitors per {granularity}</caption>
          <thead>
            <tr>
              <th scope="col">{BUCKET_NAMES[granularity] ?? granularity}</th>
              <th scope="col" class="num">
                Pageviews
              </th>
              <th scope="col" class="num">
                Visitors
              </th>
            </tr>
          </thead>
          <tbody>
            {begun(series, nowSeconds).map((p) => (
              <tr key={p.t} data-t={p.t}>
                <th scope="row">{formatBucket(p.t, tz, granularity)}</th>
                <td class="num" data-value={p.pageviews}>
                  {formatNumber(p.pageviews)}
                </td>
                <td class="num" data-value={p.visitors}>
                  {formatNumber(p.visitors)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      {(forecast || previous.length > 0) && (
        <figcaption class="forecast">
          {forecast &&
            `Forecast for the current ${granularity}: ${formatNumber(Math.round(forecast.pageviews))} pageviews, ${formatNumber(Math.round(forecast.visitors))} visitors (the hollow points). `}
          {previous.length > 0 && 'The faint dashed lines are the previous period.'}
        </figcaption>
      )}
    </figure>
  );
}
