/**
 * The crawler hits' table (issue 41) in both event stores, keyed by (site,
 * registration, hour, crawler, path): DuckDB replaces on conflict of its
 * primary key; ClickHouse keeps a ReplacingMergeTree by the key whose latest
 * save wins (reads are FINAL: functions/reports/sql/crawlers.ts).
 */
export const CRAWLER_TABLE = 'crawler_hits';

export const DUCKDB_CRAWLER_TABLE = `CREATE TABLE IF NOT EXISTS ${CRAWLER_TABLE} (
  site VARCHAR NOT NULL, registration VARCHAR NOT NULL, hour BIGINT NOT NULL, crawler VARCHAR NOT NULL,
  category VARCHAR NOT NULL, path VARCHAR NOT NULL, hits BIGINT NOT NULL,
  PRIMARY KEY (site, registration, hour, crawler, path))`;

/** The ClickHouse table; `saved_at` orders the versions of a key. */
export const clickhouseCrawlerTable = (db: string) => `CREATE TABLE IF NOT EXISTS ${db}.${CRAWLER_TABLE} (
  site String, registration String, hour Int64, crawler String, category LowCardinality(String), path String, hits UInt64, saved_at Int64)
  ENGINE = ReplacingMergeTree(saved_at) PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(hour)) ORDER BY (site, registration, hour, crawler, path)`;

