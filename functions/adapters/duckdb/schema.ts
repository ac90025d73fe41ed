/**
 * The DuckDB event store's layout: one column per EventRow field, the 64-bit
 * keys of the string identities, and the flags the writer sets.
 */
import type { StageColumn } from './chunk-stager.ts';
import type { EventRow } from '#domain/rows/event-row.ts';

export interface Column extends StageColumn<EventRow> {
  name: keyof EventRow;
  sql: string;
}

/**
 * In a fixed order shared by the tables and the appender. `ts` is BIGINT
 * Unix milliseconds: range filters compare plain int64s against integer
 * parameters, so zone maps prune row groups with no cast in the way; reports
 * bucket with `epoch_ms(ts)`. Each `value` reads its field by name: a shared
 * reader by variable key went megamorphic.
 */
export const COLUMNS: readonly Column[] = [
  { name: 'site', sql: 'VARCHAR NOT NULL', kind: 'text', value: (r) => r.site },
  { name: 'registration', sql: 'VARCHAR NOT NULL', kind: 'text', value: (r) => r.registration },
  { name: 'ts', sql: 'BIGINT NOT NULL', kind: 'bigint', value: (r) => r.ts },
  { name: 'kind', sql: 'VARCHAR NOT NULL', kind: 'text', value: (r) => r.kind },
  { name: 'id', sql: 'VARCHAR NOT NULL', kind: 'text', value: (r) => r.id },
  { name: 'original_id', sql: 'VARCHAR', kind: 'text', value: (r) => r.original_id },
  { name: 'event', sql: 'VARCHAR', kind: 'text', value: (r) => r.event },
  { name: 'visitor', sql: 'VARCHAR', kind: 'text', value: (r) => r.visitor },
  { name: 'unique', sql: 'BOOLEAN', kind: 'bool', value: (r) => r.unique },
  { name: 'page_id', sql: 'VARCHAR', kind: 'text', value: (r) => r.page_id },
  { name: 'session_id', sql: 'VARCHAR', kind: 'text', value: (r) => r.session_id },
  { name: 'path', sql: 'VARCHAR', kind: 'text', value: (r) => r.path },
  { name: 'query', sql: 'VARCHAR', kind: 'text', value: (r) => r.query },
  { name: 'referrer', sql: 'VARCHAR', kind: 'text', value: (r) => r.referrer },
  { name: 'referrer_host', sql: 'VARCHAR', kind: 'text', value: (r) => r.referrer_host },
  { name: 'utm_source', sql: 'VARCHAR', kind: 'text', value: (r) => r.utm_source },
  { name: 'utm_medium', sql: 'VARCHAR', kind: 'text', value: (r) => r.utm_medium },
  { name: 'utm_campaign', sql: 'VARCHAR', kind: 'text', value: (r) => r.utm_campaign },
  { name: 'utm_term', sql: 'VARCHAR', kind: 'text', value: (r) => r.utm_term },
  { name: 'utm_content', sql: 'VARCHAR', kind: 'text', value: (r) => r.utm_content },
  { name: 'source', sql: 'VARCHAR', kind: 'text', value: (r) => r.source },
  { name: 'country', sql: 'VARCHAR', kind: 'text', value: (r) => r.country },
  { name: 'browser', sql: 'VARCHAR', kind: 'text', value: (r) => r.browser },
  { name: 'os', sql: 'VARCHAR', kind: 'text', value: (r) => r.os },
  { name: 'device', sql: 'VARCHAR', kind: 'text', value: (r) => r.device },
  { name: 'language', sql: 'VARCHAR', kind: 'text', value: (r) => r.language },
  { name: 'viewport_width', sql: 'INTEGER', kind: 'int', value: (r) => r.viewport_width },
  { name: 'viewport_height', sql: 'INTEGER', kind: 'int', value: (r) => r.viewport_height },
  { name: 'screen_width', sql: 'INTEGER', kind: 'int', value: (r) => r.screen_width },
  { name: 'screen_height', sql: 'INTEGER', kind: 'int', value: (r) => r.screen_height },
  { name: 'duration', sql: 'DOUBLE', kind: 'double', value: (r) => r.duration },
  { name: 'scrolled', sql: 'INTEGER', kind: 'int', value: (r) => r.scrolled },
  { name: 'bot', sql: 'BOOLEAN NOT NULL', kind: 'bool', value: (r) => r.bot },
  { name: 'metadata', sql: 'VARCHAR', kind: 'text', value: (r) => r.metadata },
  { name: 'https', sql: 'BOOLEAN', kind: 'bool', value: (r) => r.https },
  { name: 'imported', sql: 'BOOLEAN NOT NULL', kind: 'bool', value: (r) => r.imported },
  { name: 'source_id', sql: 'VARCHAR', kind: 'text', value: (r) => r.source_id },
];

/** Quoted: `unique` is a reserved word. */
export const COLUMN_LIST = COLUMNS.map((c) => `"${c.name}"`).join(', ');
export const COLUMN_DEFS = COLUMNS.map((c) => `"${c.name}" ${c.sql}`).join(', ');

/**
 * 64-bit keys of the string identities (domain/rows/flags/keys.ts): reports
 * count distinct visitors and join appends to pages on integers, several
 * times cheaper than on strings, and the writer's flag index holds them.
 * (A collision within one site and range is about 1 in 10^7 at a million pageviews.)
 */
export const KEY_COLUMNS = [
  { name: 'id_key', from: 'id' },
  { name: 'visitor_key', from: 'visitor' },
  { name: 'parent_key', from: 'original_id' },
] as const;
export const KEY_DEFS = KEY_COLUMNS.map((k) => `${k.name} UBIGINT`).join(', ');
export const KEY_LIST = KEY_COLUMNS.map((k) => k.name).join(', ');

/**
 * Flags the writer sets (domain/rows/flags/flag-index.ts states the rules;
 * flag-rules-sql.ts recomputes them from stored rows):
 * - `replay`: a row of the same (site, registration, kind, id) is stored
 *   within COPY_WINDOW_MS before it. Reports count rows where it is false.
 * - `visitor_first`: the earliest canonical pageview (human, not a replay,
 *   with a visitor hash) of its visitor hash on its registration and UTC day.
 * - `parent_ts` (appends): the ts of the earliest canonical page of its parent
 *   id within APPEND_WINDOW_MS before it; null when none is.
 */
const FLAG_DEFS = 'replay BOOLEAN NOT NULL DEFAULT false, visitor_first BOOLEAN NOT NULL DEFAULT false, parent_ts BIGINT';
export const STORED_DEFS = `${COLUMN_DEFS}, ${KEY_DEFS}, ${FLAG_DEFS}`;
export const STORED_COLUMNS = `${COLUMN_LIST}, ${KEY_LIST}, replay, visitor_first, parent_ts`;

/**
 * Two tables behind the `events` view. The writer appends to `events_fresh`
 * in arrival order; compaction moves those rows into `events_main` sorted by
 * (site, ts), so each site's rows sit in their own row groups and the zone
 * maps on site and ts let a report read only its site's row groups. Named in
 * the DuckDB dialect, whose heaviest reads take the two tables directly.
 */
export { FRESH_TABLE, MAIN_TABLE } from '#domain/rows/duckdb-tables.ts';
