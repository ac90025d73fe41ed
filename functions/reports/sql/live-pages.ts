/**
 * Live pages: the scope's top pages by distinct visitor hashes since a time
 * (the overview summary's last 30 minutes). Like live visitors, it reads every
 * human pageview: a copy adds no visitor hash, so the look-back a copy test
 * needs (a day more than the 30 minutes) would buy nothing.
 */
import type { ReportScope } from '#ports/report-store.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { FIRST_SLICE_STORES, type Report } from './report.ts';
import { filterColumns, filterSql, label, num } from './text.ts';

export type LiveScope = Omit<ReportScope, 'from' | 'to'> & { since: number };

/** Timestream and ClickHouse: the same statement over their scans. */
const readTime = (sql: ReadTimeSql, scope: LiveScope, limit: number) => `
    SELECT "path" AS "name", count(DISTINCT "visitor") AS "visitors"
    FROM ${sql.scan({ kinds: ['pageview'], sites: [scope], from: scope.since }, ['path', 'visitor', 'bot', ...filterColumns(scope.filters)])} AS e
    WHERE ${sql.notBot} AND "visitor" IS NOT NULL${filterSql(sql, scope.filters)}
    GROUP BY "path"
    ORDER BY "visitors" DESC, "name" ASC
    LIMIT ${sql.limit(limit)}`;

export const livePages: Query<[scope: LiveScope, limit: number], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, limit) => `
    SELECT path AS name, count(DISTINCT visitor_key) AS visitors FROM events
    WHERE kind = 'pageview' AND NOT bot AND visitor_key IS NOT NULL AND ${sql.sites([scope])} AND ts >= ${sql.bind(scope.since)}${filterSql(sql, scope.filters)}
    GROUP BY path ORDER BY visitors DESC, name ASC LIMIT ${sql.limit(limit)}`,
  timestream: (sql, scope, limit) => readTime(sql, scope, limit),
  clickhouse: (sql, scope, limit) => readTime(sql, scope, limit),
};

export const livePageRow = (r: ResultRow) => ({ name: label(r.name), visitors: num(r.visitors) });

export const livePagesReport: Report<[scope: LiveScope, limit: number], { name: string; visitors: number }[]> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, scope, limit) => (await db.run(livePages, scope, limit)).map(livePageRow),
};
