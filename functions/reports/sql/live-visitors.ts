/** Live visitors: distinct visitor hashes with a non-bot pageview or event since a time, per site. */
import type { SiteRef } from '#ports/report-store.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { FIRST_SLICE_STORES, type Report } from './report.ts';
import { num } from './text.ts';

/** Timestream and ClickHouse: the same statement over their scans. */
const readTime = (sql: ReadTimeSql, sites: readonly SiteRef[], since: number) => `
    SELECT "site", count(DISTINCT "visitor") AS "visitors"
    FROM ${sql.scan({ kinds: ['pageview', 'event'], sites, from: since }, ['site', 'visitor', 'bot'])} AS e
    WHERE ${sql.notBot} AND "visitor" IS NOT NULL
    GROUP BY "site"`;

export const liveVisitors: Query<[sites: readonly SiteRef[], since: number], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, sites, since) => `
    SELECT site, count(DISTINCT visitor_key) AS visitors FROM events
    WHERE ${sql.sites(sites)} AND ts >= ${sql.bind(since)} AND NOT bot AND kind IN ('pageview', 'event') AND visitor_key IS NOT NULL
    GROUP BY site`,
  timestream: (sql, sites, since) => readTime(sql, sites, since),
  clickhouse: (sql, sites, since) => readTime(sql, sites, since),
};

export const liveVisitorsBySite = (rows: readonly ResultRow[]) => new Map(rows.map((r) => [String(r.site), num(r.visitors)]));

export const liveVisitorsReport: Report<[sites: readonly SiteRef[], since: number], Map<string, number>> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, sites, since) => liveVisitorsBySite(await db.run(liveVisitors, sites, since)),
};
