/**
 * The e-mail digest itself (issue 38): per site the period's pageviews,
 * visitors and median visit duration against the period before, a bar chart
 * drawn with table cells (it renders in mail clients that show no images and
 * run no CSS beyond inline styles), the top pages, sources, countries and
 * events, goal conversions, and for API sites requests, error rate and p95;
 * a link to the dashboard view of the same range, and the recipient's own
 * unsubscribe link. HTML and plain text from the same parts; every value
 * is data and escaped (DESIGN.md §7).
 */
import type { Mail } from '#ports/mailer.ts';
import { escapeHtml } from '../mail/html.ts';
import type { DigestFrequency } from './schedule.ts';

export interface DigestTotals {
  pageviews: number;
  visitors: number;
  /** The median visit duration, seconds; null without measured visits. */
  duration_s: number | null;
}

export interface DigestApi {
  requests: number;
  /** Null without requests. */
  error_rate: number | null;
  p95_ms: number | null;
  previous: { requests: number; error_rate: number | null; p95_ms: number | null };
}

export interface DigestRow {
  name: string;
  value: number;
}

export interface SiteDigest {
  hostname: string;
  totals: DigestTotals;
  previous: DigestTotals;
  /** Pageviews per bucket of the period (hours of a day, days of a week or month), with a short label. */
  chart: { label: string; pageviews: number }[];
  pages: DigestRow[];
  sources: DigestRow[];
  countries: DigestRow[];
  events: DigestRow[];
  goals: { name: string; conversions: number; conversion_rate: number }[];
  api: DigestApi | null;
  /** The dashboard view of the site over the same range, when the service knows its public address. */
  link: string | null;
}

export interface DigestInput {
  kind: 'site' | 'workspace';
  frequency: DigestFrequency;
  tz: string;
  /** [from, to) ms. */
  period: { from: number; to: number };
  sites: SiteDigest[];
  /** The one recipient of this copy, and its own unsubscribe link. */
  to: string;
  unsubscribeUrl: string | null;
}

const NAMES: Record<DigestFrequency, string> = { daily: 'Daily', weekly: 'Weekly', monthly: 'Monthly' };

const number = (n: number) => new Intl.NumberFormat('en-US').format(n);
const percent = (fraction: number) => `${(Math.round(fraction * 10_000) / 100).toFixed(2)} %`;

/** Seconds as `1m 05s`, `42s`; none as `—`. */
export function formatDuration(s: number | null): string {
  if (s === null) return '—';
  const whole = Math.round(s);
  return whole >= 60 ? `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/** The change from `before` to `now`: `+12 %`, `−5 %`, `new` (from nothing), `—` (nothing either time). */
export function formatChange(now: number | null, before: number | null): string {
  if (now === null || before === null || (now === 0 && before === 0)) return '—';
  if (before === 0) return 'new';
  const change = Math.round(((now - before) / before) * 100);
  return change === 0 ? '±0 %' : change > 0 ? `+${change} %` : `−${-change} %`;
}

/** The period in words, in its time zone: `Mon, 23 Nov 2026`, `16 Nov – 22 Nov 2026`, `November 2026`. */
export function periodLabel(frequency: DigestFrequency, tz: string, period: { from: number; to: number }): string {
  const day = (ms: number, year: boolean) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: tz, weekday: frequency === 'daily' ? 'short' : undefined, day: 'numeric', month: 'short', year: year ? 'numeric' : undefined }).format(ms);
  if (frequency === 'monthly') return new Intl.DateTimeFormat('en-GB', { timeZone: tz, month: 'long', year: 'numeric' }).format(period.from);
  if (frequency === 'daily') return day(period.from, true);
  return `${day(period.from, false)} – ${day(period.to - 1, true)}`;
}

/** The digest's subject line. */
export function digestSubject(input: Pick<DigestInput, 'kind' | 'frequency' | 'tz' | 'period' | 'sites'>): string {
  const what = input.kind === 'site' ? `report: ${input.sites[0]?.hostname ?? ''}` : `digest: ${input.sites.length} site${input.sites.length === 1 ? '' : 's'}`;
  return `[tinytrack] ${NAMES[input.frequency]} ${what}, ${periodLabel(input.frequency, input.tz, input.period)}`;
}

const BLOCKS = '▁▂▃▄▅▆▇█';
const CHART_HEIGHT = 60;

/** The chart as text: one block character per bucket. */
const sparkline = (chart: SiteDigest['chart']) => {
  const top = Math.max(1, ...chart.map((c) => c.pageviews));
  return chart.map((c) => BLOCKS[Math.min(7, Math.floor((c.pageviews / top) * 7.999))]).join('');
};

/** The chart as a row of cells, each a column of two cells whose heights make the bar (no images, no CSS layout). */
function chartHtml(chart: SiteDigest['chart']): string {
  const top = Math.max(1, ...chart.map((c) => c.pageviews));
  const bars = chart.map((c) => {
    const h = Math.round((c.pageviews / top) * CHART_HEIGHT);
    const title = escapeHtml(`${c.label}: ${number(c.pageviews)} pageviews`);
    const bar = h > 0 ? `<tr><td height="${h}" bgcolor="#4f46e5" style="background:#4f46e5;height:${h}px;font-size:0;line-height:0">&nbsp;</td></tr>` : '';
    return `<td valign="bottom" title="${title}" style="padding:0 1px"><table role="presentation" cellpadding="0" cellspacing="0" width="100%"><tr><td height="${CHART_HEIGHT - h}" style="height:${CHART_HEIGHT - h}px;font-size:0;line-height:0">&nbsp;</td></tr>${bar}</table></td>`;
  });
  const first = chart[0]?.label ?? '';
  const last = chart[chart.length - 1]?.label ?? '';
  return `<table role="presentation" cellpadding="0" cellspacing="0" width="100%" style="margin:8px 0"><tr>${bars.join('')}</tr></table>
<table role="presentation" width="100%" style="font-size:11px;color:#6b7280"><tr><td>${escapeHtml(first)}</td><td align="right">${escapeHtml(last)}</td></tr></table>`;
}

/** One site's figures as label, value and change. */
function figures(site: SiteDigest): [string, string, string][] {
  const rows: [string, string, string][] = [
    ['Pageviews', number(site.totals.pageviews), formatChange(site.totals.pageviews, site.previous.pageviews)],
    ['Visitors', number(site.totals.visitors), formatChange(site.totals.visitors, site.previous.visitors)],
    ['Median visit duration', formatDuration(site.totals.duration_s), formatChange(site.totals.duration_s, site.previous.duration_s)],
  ];
  if (site.api) {
    const { api } = site;
    rows.push(
      ['API requests', number(api.requests), formatChange(api.requests, api.previous.requests)],
      ['API error rate', api.error_rate === null ? '—' : percent(api.error_rate), formatChange(api.error_rate, api.previous.error_rate)],
      ['API p95 latency', api.p95_ms === null ? '—' : `${number(Math.round(api.p95_ms))} ms`, formatChange(api.p95_ms, api.previous.p95_ms)],
    );
  }
  return rows;
}

/** A site's top lists, each with its heading; the empty ones left out. */
const lists = (site: SiteDigest): [string, DigestRow[]][] =>
  (
    [
      ['Top pages', site.pages],
      ['Top sources', site.sources],
      ['Top countries', site.countries],
      ['Top events', site.events],
      ['Goal conversions', site.goals.map((g) => ({ name: `${g.name} (${percent(g.conversion_rate)})`, value: g.conversions }))],
    ] as [string, DigestRow[]][]
  ).filter(([, rows]) => rows.length > 0);

const CELL = 'padding:4px 8px;border-bottom:1px solid #e5e7eb';

function siteHtml(site: SiteDigest): string {
  const figureRows = figures(site)
    .map(([label, value, change]) => `<tr><td style="${CELL}">${escapeHtml(label)}</td><td align="right" style="${CELL};font-weight:bold">${escapeHtml(value)}</td><td align="right" style="${CELL};color:#6b7280">${escapeHtml(change)}</td></tr>`)
    .join('');
  const tables = lists(site)
    .map(
      ([heading, rows]) =>
        `<h3 style="font-size:14px;margin:16px 0 4px">${escapeHtml(heading)}</h3><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:13px">${rows
          .map((r) => `<tr><td style="${CELL}">${escapeHtml(r.name || '(none)')}</td><td align="right" style="${CELL}">${escapeHtml(number(r.value))}</td></tr>`)
          .join('')}</table>`,
    )
    .join('');
  const link = site.link ? `<p style="margin:12px 0"><a href="${escapeHtml(site.link)}" style="color:#4f46e5">Open this period in the dashboard</a></p>` : '';
  return `<h2 style="font-size:16px;margin:24px 0 8px">${escapeHtml(site.hostname)}</h2>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px">${figureRows}</table>
${site.chart.length > 0 ? chartHtml(site.chart) : ''}${tables}${link}`;
}

function siteText(site: SiteDigest): string[] {
  const out = [site.hostname, '='.repeat(Math.min(60, site.hostname.length)), ...figures(site).map(([label, value, change]) => `${label}: ${value} (${change})`)];
  if (site.chart.length > 0) out.push('', `Pageviews: ${sparkline(site.chart)} (${site.chart[0]?.label} to ${site.chart[site.chart.length - 1]?.label})`);
  for (const [heading, rows] of lists(site)) out.push('', `${heading}:`, ...rows.map((r) => `  ${r.name || '(none)'}: ${number(r.value)}`));
  if (site.link) out.push('', `Open this period in the dashboard: ${site.link}`);
  return out;
}

/** The digest for one recipient, in HTML with inline styles and in plain text. */
export function digestMail(input: DigestInput): Mail {
  const subject = digestSubject(input);
  const title = `${NAMES[input.frequency]} ${input.kind === 'site' ? 'report' : 'digest'}: ${periodLabel(input.frequency, input.tz, input.period)}`;
  const footer = `You receive this because ${input.to} is a recipient of this ${input.kind === 'site' ? 'e-mail report' : 'workspace digest'} (times in ${input.tz}).`;
  const empty = input.sites.length === 0 ? ['No sites are in this digest.'] : [];
  const text = [
    title,
    '',
    ...empty,
    ...input.sites.flatMap((s) => [...siteText(s), '']),
    footer,
    ...(input.unsubscribeUrl ? [`Unsubscribe: ${input.unsubscribeUrl}`] : []),
  ].join('\n');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6"><tr><td align="center" style="padding:16px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;width:100%;background:#ffffff;border-radius:8px;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#111827"><tr><td style="padding:24px">
<h1 style="font-size:20px;margin:0 0 8px">${escapeHtml(title)}</h1>
${empty.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}${input.sites.map(siteHtml).join('\n')}
<p style="font-size:12px;color:#6b7280;margin-top:24px">${escapeHtml(footer)}${input.unsubscribeUrl ? ` <a href="${escapeHtml(input.unsubscribeUrl)}" style="color:#6b7280">Unsubscribe</a>` : ''}</p>
</td></tr></table></td></tr></table></body></html>`;
  return { to: [input.to], subject, text, html };
}
