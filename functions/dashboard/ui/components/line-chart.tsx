/**
 * Lines over time buckets (uPlot on a canvas), mirrored by a table for
 * keyboards, screen readers and tests: the API view's requests, error rate
 * and latency charts. Null values are gaps.
 */
import { useEffect, useRef } from 'preact/hooks';
import { paletteColor } from './palette.ts';
import uPlot from 'uplot';
import { formatBucket } from '../format.ts';

export interface Line {
  label: string;
  color: string;
  values: readonly (number | null)[];
  /** The right-hand scale (a rate next to counts). */
  right?: boolean;
  format: (v: number) => string;
}

export function LineChart({ t, lines, tz, granularity, caption, testId }: { t: readonly number[]; lines: readonly Line[]; tz: string; granularity: string; caption: string; testId: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const right = lines.some((l) => l.right);
    const axis = paletteColor('--axis', '#374151');
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
      legend: { show: true },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] }, r: { range: (_u, _min, max) => [0, Math.max(0.05, max * 1.1)] } },
      axes: [{ stroke: axis }, { stroke: axis, size: 56 }, ...(right ? [{ stroke: axis, side: 1 as const, scale: 'r', size: 56, grid: { show: false } }] : [])],
      series: [
        { value: (_u, v) => (v === null ? '—' : formatBucket(v, tz, granularity)) },
        ...lines.map((l) => ({ label: l.label, stroke: l.color, width: 2, scale: l.right ? 'r' : 'y', value: (_u: uPlot, v: number | null) => (v === null ? '—' : l.format(v)) })),
      ],
    };
    const plot = new uPlot(opts, [[...t], ...lines.map((l) => [...l.values])] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [t, lines, tz, granularity]);
  return (
    <figure class="chart">
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <details class="chart-table">
        <summary>Show the chart's numbers</summary>
        <table data-testid={testId}>
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{granularity === 'hour' ? 'Hour' : 'Day'}</th>
              {lines.map((l) => (
                <th key={l.label} scope="col" class="num">
                  {l.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {t.map((x, i) => (
              <tr key={x}>
                <th scope="row">{formatBucket(x, tz, granularity)}</th>
                {lines.map((l) => {
                  const v = l.values[i] ?? null;
                  return (
                    <td key={l.label} class="num">
                      {v === null ? '—' : l.format(v)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
