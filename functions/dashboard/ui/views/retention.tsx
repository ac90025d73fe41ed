/** Engagement retention: the share of pageviews lasting and scrolling at least each threshold. */
import { sitePath, useApi } from '../api.ts';
import { Load, Panel } from '../components/panel.tsx';
import { ReportControls } from '../components/report-controls.tsx';
import { formatDuration, formatNumber, formatShare } from '../format.ts';
import { apiQuery, type ReportState } from '../report-state.ts';

interface Retention {
  duration: { s: number; share: number }[];
  scroll: { pct: number; share: number }[];
  pageviews_measured: number;
}

function Shares({ rows, caption }: { rows: { label: string; share: number }[]; caption: string }) {
  return (
    <table class="breakdown">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">At least</th>
          <th scope="col" class="num">
            Share of pageviews
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label}>
            <th scope="row" class="name">
              <span class="bar" style={{ width: `${r.share * 100}%` }} aria-hidden="true" />
              <span>{r.label}</span>
            </th>
            <td class="num">{formatShare(r.share)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RetentionView({ hostname, state, setState, signedIn }: { hostname: string; state: ReportState; setState: (s: ReportState) => void; signedIn: boolean }) {
  const retention = useApi<Retention>(`${sitePath(hostname)}/retention?${apiQuery(state, Date.now() / 1000).toString()}`, signedIn);
  return (
    <div class="overview">
      <ReportControls state={state} setState={setState} menu={{ base: sitePath(hostname), signedIn }} />
      <Panel title="Engagement retention" id="retention">
        <Load state={retention} label="retention">
          {(r) => (
            <>
              <p data-testid="measured">{formatNumber(r.pageviews_measured)} pageviews with a measured duration.</p>
              <div class="grid">
                <Shares caption="Time on page" rows={r.duration.map((d) => ({ label: formatDuration(d.s), share: d.share }))} />
                <Shares caption="Scroll depth" rows={r.scroll.map((d) => ({ label: `${d.pct}%`, share: d.share }))} />
              </div>
            </>
          )}
        </Load>
      </Panel>
    </div>
  );
}
