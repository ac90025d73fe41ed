/** Live visitors: distinct visitor hashes with a non-bot pageview or event since a time, per site. */
import type { SiteRef } from '#ports/report-store.ts';
import type { Query, ResultRow } from './dialect.ts';
import { NOT_BOT } from './dialects/timestream.ts';
import { NOT_BOT as CLICKHOUSE_NOT_BOT } from './dialects/clickhouse.ts';
import { num } from './text.ts';

export const liveVisitors: Query<[sites: readonly SiteRef[], since: number]> = {
  duckdb: (sql, sites, since) => `
    SELECT site, count(DISTINCT visitor_key) AS visitors FROM events
    WHERE ${sql.sites(sites)} AND ts >= ${sql.bind(since)} AND NOT bot AND kind IN ('pageview', 'event') AND visitor_key IS NOT NULL
    GROUP BY site`,
  timestream: (sql, sites, since) => `
    SELECT "site", count(DISTINCT "visitor") AS "visitors"
    FROM ${sql.scan({ kinds: ['pageview', 'event'], sites, from: since }, ['site', 'visitor', 'bot'])} AS e
    WHERE ${NOT_BOT} AND "visitor" IS NOT NULL
    GROUP BY "site"`,
  clickhouse: (sql, sites, since) => `
    SELECT "site", count(DISTINCT "visitor") AS "visitors"
    FROM ${sql.scan(['pageview', 'event'], sites, since, undefined, ['site', 'visitor', 'bot'])} AS e
    WHERE ${CLICKHOUSE_NOT_BOT} AND "visitor" IS NOT NULL
    GROUP BY "site"`,
};

export const liveVisitorsBySite = (rows: readonly ResultRow[]) => new Map(rows.map((r) => [String(r.site), num(r.visitors)]));
