/**
 * GET /api/sites/{hostname}/crawlers (issue 41): rows by crawler, page or
 * category over the range, and the range's days in the timezone, each with
 * its hits per category (zero-filled), from the store's hourly counts.
 */
import type { CrawlerCategory } from '#domain/crawlers/known-crawlers.ts';
import { localDay } from '#domain/reports/overview.ts';
import { bucketStarts, type Range } from '#domain/reports/time.ts';
import type { CrawlerDim, CrawlerHitStore, CrawlerRow } from '#ports/crawler-hits.ts';
import type { SiteRef } from '#ports/report-store.ts';

export interface CrawlerReportRequest extends SiteRef {
  /** Unix seconds. */
  range: Range;
  tz: string;
  dim: CrawlerDim;
  limit: number;
}

export type CrawlerDay = { day: string } & Record<CrawlerCategory, number>;

export interface CrawlerReport {
  rows: CrawlerRow[];
  series: CrawlerDay[];
}

export async function getCrawlerReport(store: CrawlerHitStore, q: CrawlerReportRequest): Promise<CrawlerReport> {
  const scope = { site: q.site, registration: q.registration, from: q.range.from * 1000, to: q.range.to * 1000 };
  const [rows, hours] = await Promise.all([store.crawlerRows(scope, q.dim, q.limit), store.crawlerHours(scope)]);
  const series = bucketStarts(q.range, q.tz, 'day').map((s): CrawlerDay => ({ day: localDay(q.tz, Math.max(s, q.range.from)), ai: 0, search: 0, other: 0 }));
  const byDay = new Map(series.map((d) => [d.day, d]));
  for (const h of hours) {
    const day = byDay.get(localDay(q.tz, h.hour / 1000));
    if (day) day[h.category] += h.hits;
  }
  return { rows, series };
}
