/**
 * A fragment shared by the traffic engagement and retention queries: the CTEs
 * ending in `page`, one row per canonical human pageview in [from, to) that
 * matches the filters and has engagement, with `site`, `ts`,
 * `total_duration` (its own duration plus its appends', null when none has
 * one) and `scroll` (the maximum of its own and its appends').
 */
import type { FilterClause } from '#domain/reports/filter.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { Query } from './dialect.ts';
import { CANONICAL } from './dialects/duckdb.ts';
import { NOT_BOT } from './dialects/timestream.ts';
import { filterColumns, filterSql } from './text.ts';

export const engagedPages: Query<[sites: readonly SiteRef[], from: number, to: number, filters: readonly FilterClause[]]> = {
  /**
   * The writer stamps each append with its page's ts (`parent_ts`), so only
   * the appends of the range's pages are read. Without filters every such
   * append's page qualifies and only pages with engagement of their own are
   * read besides; with filters the pages are matched first.
   */
  duckdb: (sql, sites, from, to, filters) => {
    const site = sql.sites(sites);
    const [start, end] = [sql.bind(from), sql.bind(to)];
    const own = `${CANONICAL} AND ${site} AND ts >= ${start} AND ts < ${end}${filterSql(sql, filters)}`;
    const appends = `
    ap AS (
      SELECT site, parent_key AS id, min(parent_ts) AS ts, sum(duration) AS duration, max(scrolled) AS scrolled
      FROM events
      WHERE kind = 'append' AND NOT replay AND ${site} AND ts >= ${start} AND parent_ts >= ${start} AND parent_ts < ${end}
      GROUP BY site, parent_key
    )`;
    const totals = (pv: string) => `
    CASE WHEN ${pv}.duration IS NULL AND ap.duration IS NULL THEN NULL
         ELSE coalesce(${pv}.duration, 0) + coalesce(ap.duration, 0) END AS total_duration,
    greatest(${pv}.scrolled, ap.scrolled) AS scroll`;
    if (filters.length === 0) {
      return `${appends},
    own AS (SELECT site, id_key AS id, ts, duration, scrolled FROM events WHERE ${own} AND (duration IS NOT NULL OR scrolled IS NOT NULL)),
    page AS (
      SELECT coalesce(own.site, ap.site) AS site, coalesce(own.ts, ap.ts) AS ts, ${totals('own')}
      FROM own FULL OUTER JOIN ap ON ap.site = own.site AND ap.id = own.id
    )`;
    }
    return `${appends},
    pv AS (
      SELECT site, id_key AS id, ts, duration, scrolled FROM events
      WHERE ${own} AND (duration IS NOT NULL OR scrolled IS NOT NULL OR id_key IN (SELECT id FROM ap))
    ),
    page AS (SELECT pv.site, pv.ts, ${totals('pv')} FROM pv LEFT JOIN ap ON ap.site = pv.site AND ap.id = pv.id)`;
  },
  /**
   * Appends may arrive after `to`, so theirs is a "since" range. (`greatest`
   * is NULL when any argument is: the coalesces make it skip a missing side.)
   */
  timestream: (sql, sites, from, to, filters) => {
    const appends = sql.scan({ kinds: ['append'], sites, from }, ['site', 'original_id', 'duration', 'scrolled']);
    const pageviews = sql.scan({ kinds: ['pageview'], sites, from, to }, ['site', 'id', 'duration', 'scrolled', 'bot', ...filterColumns(filters)]);
    return `
    ap AS (
      SELECT "site", "original_id" AS "id", sum("duration") AS "duration", max("scrolled") AS "scrolled"
      FROM ${appends} AS e
      WHERE "original_id" IS NOT NULL
      GROUP BY "site", "original_id"
    ),
    pv AS (
      SELECT "site", "id", min("ts") AS "ts", max("duration") AS "own_duration", max("scrolled") AS "own_scroll"
      FROM ${pageviews} AS e
      WHERE ${NOT_BOT}${filterSql(sql, filters)}
        AND ("duration" IS NOT NULL OR "scrolled" IS NOT NULL OR "id" IN (SELECT "id" FROM ap))
      GROUP BY "site", "id"
    ),
    page AS (
      SELECT pv."site", pv."id", pv."ts",
             CASE WHEN pv."own_duration" IS NULL AND ap."duration" IS NULL THEN NULL
                  ELSE coalesce(pv."own_duration", 0) + coalesce(ap."duration", 0) END AS "total_duration",
             greatest(coalesce(pv."own_scroll", ap."scrolled"), coalesce(ap."scrolled", pv."own_scroll")) AS "scroll"
      FROM pv LEFT JOIN ap ON ap."site" = pv."site" AND ap."id" = pv."id"
    )`;
  },
};
