/** Live visitors: distinct visitor hashes with a non-bot pageview or event since a time, per site, under the report's filters. */
import type { SiteRef } from '#ports/report-store.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { FIRST_SLICE_STORES, type Report } from './report.ts';
import { filterColumns, filterSql, num } from './text.ts';

/** Timestream and ClickHouse: the same statement over their scans. */
const readTime = (sql: ReadTimeSql, sites: readonly SiteRef[], since: number, filters: readonly FilterClause[]) => `
    SELECT "site", count(DISTINCT "visitor") AS "visitors"
    FROM ${sql.scan({ kinds: ['pageview', 'event'], sites, from: since }, ['site', 'visitor', 'bot', ...filterColumns(filters)])} AS e
    WHERE ${sql.notBot} AND "visitor" IS NOT NULL${filterSql(sql, filters)}
    GROUP BY "site"`;

type Args = [sites: readonly SiteRef[], since: number, filters: readonly FilterClause[]];

export const liveVisitors: Query<Args, DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, sites, since, filters) => `
    SELECT site, count(DISTINCT visitor_key) AS visitors FROM events
    WHERE ${sql.sites(sites)} AND ts >= ${sql.bind(since)} AND NOT bot AND kind IN ('pageview', 'event') AND visitor_key IS NOT NULL${filterSql(sql, filters)}
    GROUP BY site`,
  timestream: (sql, sites, since, filters) => readTime(sql, sites, since, filters),
  clickhouse: (sql, sites, since, filters) => readTime(sql, sites, since, filters),
};

export const liveVisitorsBySite = (rows: readonly ResultRow[]) => new Map(rows.map((r) => [String(r.site), num(r.visitors)]));

export const liveVisitorsReport: Report<Args, Map<string, number>> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, sites, since, filters) => liveVisitorsBySite(await db.run(liveVisitors, sites, since, filters)),
};
