/**
 * Pageviews and visitors per bucket (uPlot on a canvas), zero-filled as the
 * API answers them. The current bucket's forecast is a dashed segment from
 * the last whole bucket; the canvas is mirrored by a table for keyboards and
 * screen readers (and for tests: the same points, readable).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatBucket, formatNumber } from '../format.ts';

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

const PAGEVIEWS = '#1d4ed8';
const VISITORS = '#047857';

/** The chart's columns: x, pageviews, visitors, then the dashed forecast pair (null but for its last two points). */
export function chartData(series: readonly SeriesPoint[], forecast: Forecast | null): uPlot.AlignedData {
  const x = series.map((p) => p.t);
  const last = forecast ? series.findIndex((p) => p.t === forecast.bucket) : -1;
  const solid = (key: 'pageviews' | 'visitors') => series.map((p, i) => (i === last ? null : p[key]));
  const dashed = (key: 'pageviews' | 'visitors') =>
    series.map((p, i) => (last < 0 ? null : i === last ? (forecast as Forecast)[key] : i === last - 1 ? p[key] : null));
  return [x, solid('pageviews'), solid('visitors'), dashed('pageviews'), dashed('visitors')];
}

export function TrafficChart({ series, forecast, tz, granularity }: { series: readonly SeriesPoint[]; forecast: Forecast | null; tz: string; granularity: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: 240,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
      cursor: { points: { size: 6 } },
      legend: { show: true },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, max * 1.1)] } },
      axes: [{ stroke: '#374151' }, { stroke: '#374151', size: 56, values: (_u, ticks) => ticks.map((v) => formatNumber(v)) }],
      series: [
        { value: (_u, v) => (v === null ? '—' : formatBucket(v, tz, granularity)) },
        { label: 'Pageviews', stroke: PAGEVIEWS, width: 2, fill: 'rgba(29, 78, 216, 0.08)', value: (_u, v) => (v === null ? '—' : formatNumber(v)) },
        { label: 'Visitors', stroke: VISITORS, width: 2, value: (_u, v) => (v === null ? '—' : formatNumber(v)) },
        { label: 'Pageviews (forecast)', stroke: PAGEVIEWS, width: 2, dash: [6, 4], value: (_u, v) => (v === null ? '—' : formatNumber(v)) },
        { label: 'Visitors (forecast)', stroke: VISITORS, width: 2, dash: [6, 4], value: (_u, v) => (v === null ? '—' : formatNumber(v)) },
      ],
    };
    const plot = new uPlot(opts, chartData(series, forecast), el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, forecast, tz, granularity]);
  return (
    <figure class="chart">
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <details class="chart-table">
        <summary>Show the chart's numbers</summary>
        <table data-testid="series">
          <caption>Pageviews and visitors per {granularity}</caption>
          <thead>
            <tr>
              <th scope="col">{granularity === 'hour' ? 'Hour' : 'Day'}</th>
              <th scope="col" class="num">
                Pageviews
              </th>
              <th scope="col" class="num">
                Visitors
              </th>
            </tr>
          </thead>
          <tbody>
            {series.map((p) => (
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
      {forecast && (
        <figcaption class="forecast">
          Forecast for the current {granularity}: {formatNumber(Math.round(forecast.pageviews))} pageviews, {formatNumber(Math.round(forecast.visitors))} visitors (dashed).
        </figcaption>
      )}
    </figure>
  );
}
