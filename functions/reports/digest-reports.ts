/**
 * What an e-mail digest shows of a site over a period (issue 38), read with
 * the same report functions the API answers with: the overview (totals, the
 * period before, the series the chart draws), the top pages, sources,
 * countries and events, goal stats where the site has goals, and for API
 * sites the API overview; and the mails of a digest, one per recipient.
 */
import { digestMail, type SiteDigest } from '#domain/digests/digest-mail.ts';
import { periodBefore } from '#domain/digests/schedule.ts';
import { unsubscribeToken } from '#domain/digests/unsubscribe.ts';
import type { DigestTarget } from '#ports/email-reports.ts';
import { digestRef, digestSettings } from '#domain/digests/email-report.ts';
import type { Mail } from '#ports/mailer.ts';
import { registrationOf } from '#domain/registration.ts';
import { localParts } from '#domain/reports/time.ts';
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import type { GoalRecord } from '#ports/goals.ts';
import type { Registry, SiteRecord } from '#ports/registry.ts';
import type { ReportStore } from '#ports/report-store.ts';
import { getApiOverview } from './api-reports.ts';
import { getGoalStats } from './goal-reports.ts';
import { getOverview } from './reports.ts';

/** The stores a digest reads. */
export interface DigestStores {
  reports: ReportStore;
  apiRequests: ApiRequestStore;
}

/** Rows of each top list. */
export const DIGEST_TOP = 5;

const pad = (n: number) => String(n).padStart(2, '0');
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** A chart bucket's label in the digest's zone: `07:00` for an hour, `Mon 23` for a day. */
function bucketLabel(t: number, tz: string, hourly: boolean): string {
  const p = localParts(tz, t);
  return hourly ? `${pad(p.hour)}:00` : `${DAYS[new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay()]} ${p.day}`;
}

/** A local calendar day, YYYY-MM-DD, of an instant (seconds). */
const dayOf = (tz: string, seconds: number) => {
  const p = localParts(tz, seconds);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
};

/** The dashboard view of a site over [from, to) (seconds): a custom range of its local days. */
export function dashboardLink(origin: string, site: Pick<SiteRecord, 'hostname' | 'kind'>, tz: string, range: { from: number; to: number }): string {
  const q = new URLSearchParams({ period: 'custom', from: dayOf(tz, range.from), to: dayOf(tz, range.to - 1), tz });
  return `${origin}/sites/${encodeURIComponent(site.hostname)}${site.kind === 'api' ? '/api' : ''}?${q.toString()}`;
}

/** A store that answers no API requests or goals (Timestream, frozen) leaves those figures out. */
const unlessUnavailable = <T>(read: Promise<T>): Promise<T | null> =>
  read.catch((e: unknown) => {
    if (e instanceof NotAvailableOnStoreError) return null;
    throw e;
  });

/** One site's part of a digest over `period` ([from, to) ms) in `tz`; `origin`: where its dashboard link points, when known. */
export async function siteDigest(
  stores: DigestStores,
  site: SiteRecord,
  goals: readonly GoalRecord[],
  period: { from: number; to: number },
  tz: string,
  origin: string | null,
): Promise<SiteDigest> {
  const range = { from: Math.floor(period.from / 1000), to: Math.floor(period.to / 1000) };
  const ref = { site: site.hostname, registration: registrationOf(site) };
  const q = { ...ref, range, tz, filters: [], now: range.to };
  const top = (dim: 'pages' | 'sources' | 'countries' | 'events') => stores.reports.breakdown({ ...ref, from: period.from, to: period.to, filters: [] }, dim, DIGEST_TOP);
  const [overview, pages, sources, countries, events, goalStats, api] = await Promise.all([
    getOverview(stores.reports, q),
    top('pages'),
    top('sources'),
    top('countries'),
    top('events'),
    goals.length > 0 ? unlessUnavailable(getGoalStats(stores.reports, q, goals)) : null,
    site.kind === 'api' ? unlessUnavailable(getApiOverview(stores.apiRequests, { ...ref, range, tz, filters: [] })) : null,
  ]);
  const rows = (list: readonly { name: string; value: number }[]) => list.map(({ name, value }) => ({ name, value }));
  const totals = (t: typeof overview.totals) => ({ pageviews: t.pageviews, visitors: t.visitors, duration_s: t.avg_duration_s });
  return {
    hostname: site.hostname,
    totals: totals(overview.totals),
    previous: totals(overview.previous),
    chart: overview.series.map((s) => ({ label: bucketLabel(s.t, tz, overview.granularity === 'hour'), pageviews: s.pageviews })),
    pages: rows(pages),
    sources: rows(sources),
    countries: rows(countries),
    events: rows(events),
    goals: (goalStats?.goals ?? []).map((g) => ({ name: g.name, conversions: g.conversions, conversion_rate: g.conversion_rate })),
    api: api && {
      requests: api.totals.requests,
      error_rate: api.totals.error_rate,
      p95_ms: api.totals.p95_ms,
      previous: { requests: api.previous.requests, error_rate: api.previous.error_rate, p95_ms: api.previous.p95_ms },
    },
    link: origin ? dashboardLink(origin, site, tz, range) : null,
  };
}

/** What composing digests reads: the stores, the registry's sites, goals and unsubscribe secret, and the public origin of links. */
export interface DigestServices extends DigestStores {
  registry: Pick<Registry, 'getSite' | 'listSites' | 'goals' | 'digests'>;
  /** Where links point (the dashboard, and the unsubscribe route under /api), when known (a local server knows its own once it listens); none: mails carry no links. */
  origin(): string | null;
}

/** The sites a digest covers, each still its owner's: a site report's site, or the workspace's (all, or those listed that the account still has). */
async function sitesOf(services: DigestServices, target: DigestTarget): Promise<SiteRecord[]> {
  if (target.kind === 'site') {
    const site = await services.registry.getSite(target.report.site);
    return site && site.owner_uid === target.report.owner_uid ? [site] : [];
  }
  const owned = (await services.registry.listSites(target.digest.owner_uid)).sort((a, b) => a.hostname.localeCompare(b.hostname));
  const { sites } = target.digest;
  return sites === 'all' ? owned : owned.filter((s) => sites.includes(s.hostname));
}

/**
 * The digest's mails for the period before `atMs` (its last complete one at that time), one per
 * recipient, each with its own unsubscribe link; `recipients` overrides the digest's (a preview).
 */
export async function digestMails(services: DigestServices, target: DigestTarget, atMs: number, recipients?: readonly string[]): Promise<Mail[]> {
  const settings = digestSettings(target);
  const period = periodBefore(settings.frequency, settings.tz, atMs);
  const sites = await sitesOf(services, target);
  const origin = services.origin();
  const parts = await Promise.all(sites.map(async (site) => siteDigest(services, site, await services.registry.goals.list(site.hostname), period, settings.tz, origin)));
  const secret = origin ? await services.registry.digests.unsubscribeSecret() : null;
  return (recipients ?? settings.recipients).map((to) =>
    digestMail({
      kind: target.kind,
      frequency: settings.frequency,
      tz: settings.tz,
      period,
      sites: parts,
      to,
      unsubscribeUrl: secret && origin ? `${origin}/api/reports/unsubscribe?token=${unsubscribeToken(secret, digestRef(target), to)}` : null,
    }),
  );
}
