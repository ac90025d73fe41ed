/**
 * Event store on one DuckDB file (the local / single-node runtime). Owns the
 * `events` table, the idempotent batch writer (data chunks through the
 * appender → a staging slot → one anti-joined INSERT, compaction beside it)
 * and a small read helper for report queries.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DuckDBInstance, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { appendChunks, STAGE_SQL, type StageColumn } from './chunk-stager.ts';
import { uniqueEvents, type EventRow, type EventStore } from '#ports/event-store.ts';
import { RowKeyMap } from '#domain/row-key-map.ts';
import { log } from '#platform/log.ts';
import { NO_REGISTRATION } from '#domain/registration.ts';

interface Column extends StageColumn<EventRow> {
  name: keyof EventRow;
  sql: string;
}

/**
 * One column per EventRow field, in a fixed order shared by the table and
 * the staging tables. `ts` is BIGINT Unix milliseconds: range filters compare
 * plain int64s against integer parameters, so zone maps prune row groups with
 * no cast in the way (a TIMESTAMP column compared with a TIMESTAMPTZ
 * parameter would be cast per row and lose pruning); reports bucket with
 * `epoch_ms(ts)`. `kind` says how a batch stages the column (chunk-stager.ts):
 * texts that repeat across a batch's rows are `coded`. Each `value` reads its
 * field by name: a shared reader by variable key went megamorphic.
 */
const COLUMNS: readonly Column[] = [
  { name: 'site', sql: 'VARCHAR NOT NULL', kind: 'coded', value: (r) => r.site },
  { name: 'registration', sql: 'VARCHAR NOT NULL', kind: 'coded', value: (r) => r.registration },
  { name: 'ts', sql: 'BIGINT NOT NULL', kind: 'bigint', value: (r) => r.ts },
  { name: 'kind', sql: 'VARCHAR NOT NULL', kind: 'coded', value: (r) => r.kind },
  { name: 'id', sql: 'VARCHAR NOT NULL', kind: 'text', value: (r) => r.id },
  { name: 'original_id', sql: 'VARCHAR', kind: 'text', value: (r) => r.original_id },
  { name: 'event', sql: 'VARCHAR', kind: 'coded', value: (r) => r.event },
  { name: 'visitor', sql: 'VARCHAR', kind: 'text', value: (r) => r.visitor },
  { name: 'unique', sql: 'BOOLEAN', kind: 'bool', value: (r) => r.unique },
  { name: 'page_id', sql: 'VARCHAR', kind: 'text', value: (r) => r.page_id },
  { name: 'session_id', sql: 'VARCHAR', kind: 'text', value: (r) => r.session_id },
  { name: 'path', sql: 'VARCHAR', kind: 'coded', value: (r) => r.path },
  { name: 'query', sql: 'VARCHAR', kind: 'text', value: (r) => r.query },
  { name: 'referrer', sql: 'VARCHAR', kind: 'text', value: (r) => r.referrer },
  { name: 'referrer_host', sql: 'VARCHAR', kind: 'coded', value: (r) => r.referrer_host },
  { name: 'utm_source', sql: 'VARCHAR', kind: 'coded', value: (r) => r.utm_source },
  { name: 'utm_medium', sql: 'VARCHAR', kind: 'coded', value: (r) => r.utm_medium },
  { name: 'utm_campaign', sql: 'VARCHAR', kind: 'coded', value: (r) => r.utm_campaign },
  { name: 'utm_term', sql: 'VARCHAR', kind: 'coded', value: (r) => r.utm_term },
  { name: 'utm_content', sql: 'VARCHAR', kind: 'coded', value: (r) => r.utm_content },
  { name: 'source', sql: 'VARCHAR', kind: 'coded', value: (r) => r.source },
  { name: 'country', sql: 'VARCHAR', kind: 'coded', value: (r) => r.country },
  { name: 'browser', sql: 'VARCHAR', kind: 'coded', value: (r) => r.browser },
  { name: 'os', sql: 'VARCHAR', kind: 'coded', value: (r) => r.os },
  { name: 'device', sql: 'VARCHAR', kind: 'coded', value: (r) => r.device },
  { name: 'language', sql: 'VARCHAR', kind: 'coded', value: (r) => r.language },
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
const COLUMN_LIST = COLUMNS.map((c) => `"${c.name}"`).join(', ');
const COLUMN_DEFS = COLUMNS.map((c) => `"${c.name}" ${c.sql}`).join(', ');

/**
 * 64-bit keys of the string identities, computed on insert: reports count
 * distinct visitors and join appends to pages on integers, which is several
 * times cheaper than on strings. (A collision within one site and range is
 * about 1 in 10^7 at a million pageviews.)
 */
export const KEY_COLUMNS = [
  { name: 'id_key', from: 'id' },
  { name: 'visitor_key', from: 'visitor' },
  { name: 'parent_key', from: 'original_id' },
] as const;
const KEY_DEFS = KEY_COLUMNS.map((k) => `${k.name} UBIGINT`).join(', ');
const KEY_LIST = KEY_COLUMNS.map((k) => k.name).join(', ');
/** The key expressions over the string columns, named as the key columns; NULL stays NULL. */
export const KEY_VALUES = KEY_COLUMNS.map((k) => `CASE WHEN "${k.from}" IS NULL THEN NULL ELSE hash("${k.from}") END AS ${k.name}`).join(', ');

/**
 * Flags the writer sets once, on insert:
 * - `replay`: a later row of a (site, kind, id) already stored within
 *   REPLAY_WINDOW_MS. Reports count rows where it is false, so de-duplicating
 *   by id costs them nothing.
 * - `visitor_first`: the earliest canonical pageview (non-bot, not a replay)
 *   of its visitor hash on its site and UTC day. Visitor hashes are scoped to
 *   a UTC day, so reports count most visitors by counting these flags and
 *   need a distinct count only over the part of a bucket that shares a UTC
 *   day with the bucket's start (functions/adapters/duckdb/duckdb-report-store.ts).
 * - `parent_ts` (appends): the ts of the canonical pageview the append
 *   belongs to, found within APPEND_WINDOW_MS before it; null when none is.
 *   Reports read a range's engagement from the appends of its pages alone.
 */
const FLAG_DEFS = 'replay BOOLEAN NOT NULL DEFAULT false, visitor_first BOOLEAN NOT NULL DEFAULT false, parent_ts BIGINT';
const STORED_DEFS = `${COLUMN_DEFS}, ${KEY_DEFS}, ${FLAG_DEFS}`;
export const STORED_COLUMNS = `${COLUMN_LIST}, ${KEY_LIST}, replay, visitor_first, parent_ts`;

/**
 * Two tables behind the `events` view. The writer appends to `events_fresh`
 * in arrival order; compaction moves those rows into `events_main` sorted by
 * (site, ts), so each site's rows sit in their own row groups and the zone
 * maps on site and ts let a report read only the row groups of its site and
 * range instead of every site's rows of that time.
 */
export const MAIN_TABLE = 'events_main';
export const FRESH_TABLE = 'events_fresh';
/** Fresh rows that trigger a compaction: several row groups (122,880 rows each) per sorted run. */
export const COMPACT_AT_ROWS = 500_000;
/**
 * Replays are recognised within this distance of the stored row: far beyond
 * any client retry, while queue redeliveries (same ts) are caught whatever
 * their delay. A day keeps the writer's look-back to a few row groups.
 */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 86_400_000n;
/** An append counts toward its page when it arrives within this time of it (page hide, any tab left open for a day). */
export const APPEND_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * What the batch alone decides about its rows, worked out before staging
 * (batchFlags) or, for bulk selections, in SQL (batchFlagsSql): the same
 * rule twice, kept side by side and checked equal by the store's tests.
 * - `batch_replay`: a later row of a (site, kind, id) that also has an
 *   earlier row in the batch.
 * - `batch_first`: the earliest pageview of its (site, visitor, UTC day) in
 *   the batch among the non-bot, non-replay ones that have a visitor hash.
 * Rows with the same ts are taken in batch order (staging keeps it as rowid),
 * so both forms pick the same row.
 * The insert adds what stored rows decide. Windows over the staged rows in
 * the insert statement took a third of its time.
 */
const STAGE_FLAG_DEFS = 'batch_replay BOOLEAN NOT NULL DEFAULT false, batch_first BOOLEAN NOT NULL DEFAULT false';
const BATCH_CANDIDATE = `kind = 'pageview' AND NOT bot AND visitor IS NOT NULL AND NOT batch_replay`;
const batchFlagsSql = (slot: string) => `
  UPDATE ${slot} SET batch_replay = f.batch_replay, batch_first = f.batch_first
  FROM (
    SELECT rid, batch_replay, ${BATCH_CANDIDATE} AND row_number() OVER (PARTITION BY site, registration, visitor, ts // 86400000, ${BATCH_CANDIDATE} ORDER BY ts, rid) = 1 AS batch_first
    FROM (SELECT rowid AS rid, site, registration, kind, visitor, bot, ts, row_number() OVER (PARTITION BY site, registration, kind, id ORDER BY ts, rowid) > 1 AS batch_replay FROM ${slot})
  ) f
  WHERE ${slot}.rowid = f.rid`;

/** A human pageview with a visitor hash: one that may be the first of its visitor-day. */
const visitorPageview = (r: EventRow) => r.kind === 'pageview' && !r.bot && r.visitor !== null;

export function batchFlags(batch: readonly EventRow[]): { replay: boolean[]; first: boolean[] } {
  const earliest = new RowKeyMap<EventRow, number>(
    (r) => r.id,
    (a, b) => a.site === b.site && a.registration === b.registration && a.kind === b.kind,
    (r) => `${r.site}\u0000${r.registration}\u0000${r.kind}\u0000${r.id}`,
  );
  for (const r of batch) {
    const ts = earliest.get(r);
    if (ts === undefined || r.ts < ts) earliest.set(r, r.ts);
  }
  const replay = batch.map((r) => r.ts > (earliest.get(r) as number));
  const day = (r: EventRow) => Math.floor(r.ts / 86_400_000);
  const firstOf = new RowKeyMap<EventRow, number>(
    (r) => r.visitor as string,
    (a, b) => a.site === b.site && a.registration === b.registration && day(a) === day(b),
    (r) => `${r.site}\u0000${r.registration}\u0000${r.visitor}\u0000${day(r)}`,
  );
  batch.forEach((r, i) => {
    if (!visitorPageview(r) || replay[i]) return;
    const at = firstOf.get(r);
    if (at === undefined || r.ts < (batch[at] as EventRow).ts) firstOf.set(r, i);
  });
  // Only a row that was set there finds its own index.
  const first = batch.map((r, i) => r.visitor !== null && firstOf.get(r) === i);
  return { replay, first };
}

/**
 * Batches are loaded into one of two slot tables of an in-memory database
 * that every connection of the instance sees, through a connection of their
 * own: one batch stages while the one before it is inserted, so a busy
 * writer (an import's chunks, say) keeps DuckDB and the event loop both at work.
 */
const STAGE_DB = 'stage';
const SLOT_COUNT = 2;
/** A bulk selection's rows, as text. */
const slotName = (slot: number) => `${STAGE_DB}.slot_${slot}`;
/** A batch's rows, repeated texts as codes into the batch's dictionary (chunk-stager.ts), kept as one list in `dict_N`. */
const codesTable = (slot: number) => `codes_${slot}`;
const dictName = (slot: number) => `${STAGE_DB}.dict_${slot}`;
const CODES_DEFS = `${COLUMNS.map((c) => `"${c.name}" ${STAGE_SQL[c.kind]}`).join(', ')}, ${STAGE_FLAG_DEFS}`;
/** A slot's tables with their columns: a bulk selection's rows, a batch's codes, the batch's dictionary. */
function slotTables(slot: number) {
  return {
    rows: { name: slotName(slot), defs: `${COLUMN_DEFS}, ${STAGE_FLAG_DEFS}` },
    codes: { name: `${STAGE_DB}.${codesTable(slot)}`, defs: CODES_DEFS },
    dict: { name: dictName(slot), defs: 'v VARCHAR[]' },
  };
}

/**
 * A slot table made anew and empty before each fill. Emptied with DELETE, a
 * table keeps counting the rows it ever held in its cardinality estimate: a
 * slot that had staged eight batches of 10,000 was planned as 80,000 rows,
 * and the planner then built the stored-id look-up's hash table on the
 * stored rows of the whole replay window instead of on the batch.
 */
const emptyTableSql = ({ name, defs }: { name: string; defs: string }) => `CREATE OR REPLACE TABLE ${name} (${defs})`;

/**
 * The staged rows as insertNewSql reads them: the event columns as text, the
 * batch flags, and `rid` to tell rows apart. A batch's codes are looked up in
 * its dictionary on the way (a list look-up per value; decoding into a table
 * first cost a whole extra write of the batch).
 */
const slotSource = (slot: number) => `(SELECT rowid AS rid, * FROM ${slotName(slot)})`;
const codesSource = (slot: number) =>
  `(SELECT c.rowid AS rid, ${COLUMNS.map((col) => (col.kind === 'coded' ? `d.v[c."${col.name}"] AS "${col.name}"` : `c."${col.name}"`)).join(', ')}, c.batch_replay, c.batch_first
    FROM ${STAGE_DB}.${codesTable(slot)} c, ${dictName(slot)} d)`;

const HUMAN_PAGEVIEW = (t: string) => `${t}.kind = 'pageview' AND NOT ${t}.bot AND NOT ${t}.replay`;
const CANONICAL_PAGEVIEW = (t: string) => `${HUMAN_PAGEVIEW(t)} AND ${t}.visitor_key IS NOT NULL`;
/** One registration's rows (domain/registration.ts): ids, visitors and pages never link across registrations of a hostname. */
const SAME_REGISTRATION = (a: string, b: string) => `${a}.site = ${b}.site AND ${a}.registration = ${b}.registration`;
const PARENT_OF = (p: string, a: string) => `${SAME_REGISTRATION(p, a)} AND ${p}.id_key = ${a}.parent_key AND ${HUMAN_PAGEVIEW(p)}`;
const SAME_VISITOR_DAY = (a: string, b: string) => `${SAME_REGISTRATION(a, b)} AND ${a}.visitor_key = ${b}.visitor_key AND ${a}.ts // 86400000 = ${b}.ts // 86400000`;

/** What a batch holds, so the statement leaves out look-ups it cannot need. */
interface BatchShape {
  /** Appends, which get their page's ts. */
  hasAppends: boolean;
  /** Human pageviews with a visitor hash, which may be their visitor-day's first (imports have none). */
  hasVisitors: boolean;
}

/**
 * Copies the staged rows not yet stored into the fresh table and sets their
 * flags. Every look-up into `events` carries a ts range, so zone maps skip
 * the row groups outside it and the statement stays cheap on a large table
 * without an index. The bounds are inlined as integer literals, not bound
 * parameters: the planner then prunes with table statistics too, and a
 * statement prepared once would keep a join order chosen for an empty table
 * (both measured several times slower). The staged rows stream through
 * joins with small build sides (stored ids of the batch, stored firsts); no
 * operator holds the whole batch.
 */
function insertNewSql(source: string, min: bigint, max: bigint, { hasAppends, hasVisitors }: BatchShape): string {
  const window = BigInt(REPLAY_WINDOW_MS);
  const dayStart = (min / DAY_MS) * DAY_MS;
  // A stored row (within the replay window) with the row's site, kind and id: the row is stored already or repeats it.
  const storedId = (t: string) => `EXISTS (SELECT 1 FROM seen e WHERE ${SAME_REGISTRATION('e', t)} AND e.kind = ${t}.kind AND e.id_key = hash(${t}.id))`;
  // A staged human pageview that is neither a batch replay nor a repeat of a stored row.
  const newHumanPageview = (t: string) => `${t}.kind = 'pageview' AND NOT ${t}.bot AND NOT ${t}.batch_replay AND NOT ${storedId(t)}`;
  // Looked up only when the batch holds appends: the look-back reads a day of rows.
  const pages = hasAppends
    ? `, pages AS (
        SELECT s.site, s.registration, hash(s.id) AS id_key, s.ts FROM ${source} s WHERE ${newHumanPageview('s')}
      )`
    : '';
  // Looked up only when the batch holds pageviews that may be first of their visitor-day.
  const firsts = hasVisitors
    ? {
        ctes: `,
          -- A visitor-day whose batch_first row is stored already or repeats a stored id: its earliest
          -- canonical pageview in the batch is the first instead. Empty unless the batch repeats stored ids.
          lost AS (
            SELECT DISTINCT s.site, s.registration, s.visitor, s.ts // 86400000 AS day FROM ${source} s WHERE s.batch_first AND ${storedId('s')}
          ),
          rescued AS (
            SELECT rid FROM (
              SELECT s.rid, row_number() OVER (PARTITION BY s.site, s.registration, s.visitor, s.ts // 86400000 ORDER BY s.ts, s.rid) AS n
              FROM ${source} s JOIN lost l ON ${SAME_REGISTRATION('l', 's')} AND l.visitor = s.visitor AND l.day = s.ts // 86400000
              WHERE ${newHumanPageview('s')}
            ) WHERE n = 1
          )`,
        flag: `${CANONICAL_PAGEVIEW('r')} AND (r.batch_first OR r.rid IN (SELECT rid FROM rescued))
          -- The stored earliest of a visitor-day carries the flag, so only flagged rows need a look.
          AND NOT EXISTS (
            SELECT 1 FROM events e
            WHERE e.visitor_first AND ${SAME_VISITOR_DAY('e', 'r')} AND e.ts < r.ts AND e.ts BETWEEN ${dayStart} AND ${max}
          )`,
      }
    : { ctes: '', flag: 'false' };
  const parentTs = hasAppends
    ? `CASE WHEN r.kind = 'append' THEN coalesce(
        (SELECT min(p.ts) FROM pages p WHERE ${SAME_REGISTRATION('p', 'r')} AND p.id_key = r.parent_key),
        (SELECT min(p.ts) FROM events p WHERE ${PARENT_OF('p', 'r')} AND p.ts BETWEEN ${min - BigInt(APPEND_WINDOW_MS)} AND ${max} AND p.ts >= r.ts - ${APPEND_WINDOW_MS})
      ) END`
    : 'NULL';
  return `
    INSERT INTO ${FRESH_TABLE} (${STORED_COLUMNS})
    -- Stored rows sharing an id key with the batch, found by the key alone: hashing site and
    -- kind for every row of the window cost more than the rest of the statement. The batch's
    -- own (always true) ts range is there for the planner: it counts a range filter as
    -- selective on either side, and then builds its hash table on the batch rather than on
    -- every stored row of the window (measured 1 ms against 28 ms per 20,000 rows).
    WITH seen AS (
      SELECT e.site, e.registration, e.kind, e.id_key FROM events e
      WHERE e.ts BETWEEN ${min - window} AND ${max + window} AND e.id_key IN (SELECT hash(id) FROM ${source} WHERE ts BETWEEN ${min} AND ${max})
    )${firsts.ctes}${pages}
    SELECT ${COLUMNS.map((c) => `r."${c.name}"`).join(', ')}, ${KEY_LIST}, r.replay, ${firsts.flag} AS visitor_first, ${parentTs} AS parent_ts
    FROM (
      SELECT s.*, ${KEY_VALUES}, s.batch_replay OR ${storedId('s')} AS replay
      FROM ${source} s
      WHERE NOT EXISTS (
        SELECT 1 FROM events e
        WHERE ${SAME_REGISTRATION('e', 's')} AND e.id = s.id AND e.ts = s.ts AND e.ts BETWEEN ${min} AND ${max}
      )
    ) r`;
}

/**
 * After a batch older than rows already stored (a retried batch): a row of it
 * may now be the earliest of its visitor-day, so a later row loses the flag.
 */
function unflagLaterFirstsSql(table: string, min: bigint, max: bigint): string {
  const from = (min / DAY_MS) * DAY_MS;
  const to = (max / DAY_MS + 1n) * DAY_MS;
  return `
    UPDATE ${table} t SET visitor_first = false
    WHERE t.visitor_first AND t.ts BETWEEN ${from} AND ${to} AND EXISTS (
      SELECT 1 FROM events e
      WHERE e.visitor_first AND ${SAME_VISITOR_DAY('e', 't')} AND e.ts < t.ts AND e.ts BETWEEN ${from} AND ${to}
    )`;
}

/** Moves the fresh rows into the main table in (site, ts) order. */
const compactSql = `INSERT INTO ${MAIN_TABLE} SELECT * FROM ${FRESH_TABLE} ORDER BY site, ts`;

/** Runs tasks one after another, each once the one before has settled. */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run(task: () => Promise<void>): Promise<void> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  settled(): Promise<unknown> {
    return this.tail;
  }
}

export type QueryParams = DuckDBValue[] | Record<string, DuckDBValue>;

/** Quiet time after the last batch before the WAL is checkpointed into the database file. */
const CHECKPOINT_IDLE_MS = 2_000;

export class DuckDbEventStore implements EventStore {
  /** Writes run one after another on the writer connection. */
  private readonly writes = new Serial();
  /** Fills of staging slots run one after another too: they share the stager connection. */
  private readonly fills = new Serial();
  private readonly idleReaders: DuckDBConnection[] = [];
  private readonly readers = new Set<DuckDBConnection>();
  private closed = false;
  private readonly freeSlots = Array.from({ length: SLOT_COUNT }, (_, slot) => slot);
  private readonly slotWaiters: ((slot: number) => void)[] = [];
  private checkpointTimer: NodeJS.Timeout | null = null;
  /** The compaction running on its own connection, if any. */
  private compacting: Promise<void> | null = null;

  private constructor(
    /** The database, for callers that need their own connection. */
    readonly instance: DuckDBInstance,
    /** Runs every write statement, one after another. */
    private readonly writer: DuckDBConnection,
    /** Loads batches into the staging slots, beside the writer. */
    private readonly stager: DuckDBConnection,
    /** Runs compactions, beside the writer. */
    private readonly compactor: DuckDBConnection,
    /** Rows in the fresh table: the inserts add theirs, each compaction takes off those it moved. */
    private freshRows: number,
    /** The newest ts stored: a batch with older pageviews may move a visitor's first pageview. */
    private newestTs: number,
    /** Fresh rows that start a compaction. */
    private readonly compactAtRows: number,
    /** The hostnames' current registrations, for rows an earlier version wrote without one. */
    private readonly registrationsOf: RegistrationsOf,
  ) {}

  /**
   * Opens (creating when missing) the store at `path`, a file in DATA_DIR or
   * ':memory:'. `registrationsOf` names the hostnames' current registrations
   * for an older file's migration (none: its rows belong to no registration).
   */
  static async open(path: string, options: { compactAtRows?: number; registrationsOf?: RegistrationsOf } = {}): Promise<DuckDbEventStore> {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // DuckDB checkpoints inside the commit that crosses the WAL threshold; at the default
    // 16 MB that stalled a batch every ~80k rows and re-compressed the same row groups
    // again and again (measured: a third of the writer's time). Checkpoints now happen
    // when writes go idle (scheduleCheckpoint); the threshold only bounds WAL replay.
    const instance = await DuckDBInstance.create(path, { checkpoint_threshold: '256MB' });
    const writer = await instance.connect();
    // No primary key: an ART index over (site, id, ts) costs too much memory at 10 M rows;
    // idempotency comes from the anti-join in insertNewSql instead.
    const registrationsOf = options.registrationsOf ?? (async () => new Map<string, string>());
    await migrate(writer, registrationsOf);
    await writer.run(`CREATE TABLE IF NOT EXISTS ${MAIN_TABLE} (${STORED_DEFS})`);
    await writer.run(`CREATE TABLE IF NOT EXISTS ${FRESH_TABLE} (${STORED_DEFS})`);
    await writer.run(`CREATE OR REPLACE VIEW events AS SELECT * FROM ${MAIN_TABLE} UNION ALL SELECT * FROM ${FRESH_TABLE}`);
    await writer.run(`ATTACH ':memory:' AS ${STAGE_DB}`);
    for (let slot = 0; slot < SLOT_COUNT; slot++) for (const table of Object.values(slotTables(slot))) await writer.run(emptyTableSql(table));
    const [state] = (
      await writer.runAndReadAll(`SELECT (SELECT count(*) FROM ${FRESH_TABLE}) AS fresh, (SELECT coalesce(max(ts), 0) FROM events) AS newest`)
    ).getRowObjectsJS();
    const [stager, compactor] = [await instance.connect(), await instance.connect()];
    return new DuckDbEventStore(
      instance,
      writer,
      stager,
      compactor,
      Number(state?.fresh ?? 0),
      Number(state?.newest ?? 0),
      options.compactAtRows ?? COMPACT_AT_ROWS,
      registrationsOf,
    );
  }

  /** Idempotent on (site, registration, id, ts); one batch is one transaction, so a failed call stores nothing. */
  async saveEvents(rows: readonly EventRow[]): Promise<void> {
    if (this.closed) throw new Error('event store is closed');
    const batch = uniqueEvents(await this.withRegistrations(rows));
    if (batch.length === 0) return;
    const { min, max } = tsRange(batch);
    await this.throughSlot(
      (slot) => this.stage(batch, slot),
      (slot) => {
        const late = batch.some((r) => visitorPageview(r) && r.ts < this.newestTs);
        const hasVisitors = batch.some(visitorPageview);
        return this.insert(codesSource(slot), min, max, late, { hasAppends: batch.some((r) => r.kind === 'append'), hasVisitors });
      },
    );
  }

  /**
   * Rows an earlier version collected carry no registration (its dead letters,
   * replayed after an upgrade): like the migration's, each gets its hostname's
   * current registration, or none (shown to no one). Without this they would
   * fail the batch they are in on every replay.
   */
  private async withRegistrations(rows: readonly EventRow[]): Promise<readonly EventRow[]> {
    if (rows.every((r) => typeof r.registration === 'string')) return rows;
    const sites = [...new Set(rows.filter((r) => typeof r.registration !== 'string').map((r) => r.site))];
    const current = await this.registrationsOf(sites);
    return rows.map((r) => (typeof r.registration === 'string' ? r : { ...r, registration: current.get(r.site) ?? NO_REGISTRATION }));
  }

  /**
   * Fills a free staging slot beside the writer (`fill` empties its tables
   * first: a failed batch may have left rows behind), then queues `write` of
   * it on the writer.
   * The slot is taken before the write queue, never inside it: a write that
   * waited there for a slot held by a write queued behind it would wait forever.
   */
  private async throughSlot(fill: (slot: number) => Promise<void>, write: (slot: number) => Promise<void>): Promise<void> {
    const slot = await this.takeSlot();
    try {
      await this.fills.run(() => fill(slot));
    } catch (e) {
      this.releaseSlot(slot);
      throw e;
    }
    const run = this.writes.run(async () => {
      try {
        await write(slot);
      } finally {
        this.releaseSlot(slot);
      }
      if (this.freshRows >= this.compactAtRows) this.startCompaction();
    });
    this.scheduleCheckpoint();
    return run;
  }

  /** A free staging slot; waits while both hold batches not yet inserted. */
  private takeSlot(): Promise<number> {
    const slot = this.freeSlots.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  private releaseSlot(slot: number): void {
    const waiter = this.slotWaiters.shift();
    if (waiter) waiter(slot);
    else this.freeSlots.push(slot);
  }

  /** Moves every fresh row into the sorted main table now (the writer starts one every COMPACT_AT_ROWS fresh rows). */
  compact(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.writes.run(async () => {
      await this.compacting;
      await this.compactOn(this.writer);
    });
  }

  /**
   * Compacts on the compactor connection while the writer goes on inserting:
   * its transaction moves the fresh rows it sees and deletes just those, so
   * rows committed meanwhile stay fresh for the next one. Only a late batch,
   * whose insert updates flags of stored rows, waits for it (insert). A
   * failure leaves the rows fresh; the next batch starts it again.
   */
  private startCompaction(): void {
    if (this.compacting) return;
    this.compacting = this.compactOn(this.compactor)
      .catch((e: unknown) => {
        log.warn('duckdb compaction failed', { message: (e as Error).message });
      })
      .finally(() => {
        this.compacting = null;
      });
  }

  /**
   * Runs a read query on a pooled connection and returns plain JS rows
   * (BIGINT columns come back as bigint). Pass integer parameters as JS
   * integers or bigints: they bind as BIGINT, keeping `ts` range filters prunable.
   */
  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    if (this.closed) throw new Error('event store is closed');
    const connection = this.idleReaders.pop() ?? (await this.newReader());
    try {
      const reader = await connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJS() as T[];
    } finally {
      this.idleReaders.push(connection);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    // Holding every slot waits out batches still staging as well as those queued for insert.
    for (let slot = 0; slot < SLOT_COUNT; slot++) await this.takeSlot();
    await this.writes.settled();
    await this.compacting;
    for (const connection of this.readers) connection.closeSync();
    this.stager.closeSync();
    this.compactor.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
  }

  /** Checkpoints once no batch has arrived for CHECKPOINT_IDLE_MS, so the work stays off busy periods. */
  private scheduleCheckpoint(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = null;
      void this.writes.run(async () => {
        if (this.closed) return;
        await this.compacting;
        await this.writer.run('CHECKPOINT').catch((e: unknown) => {
          // Not fatal: a long read may hold the database; the next idle period or the WAL threshold catches up.
          log.warn('duckdb checkpoint skipped', { message: (e as Error).message });
        });
      });
    }, CHECKPOINT_IDLE_MS);
    this.checkpointTimer.unref();
  }

  private async newReader(): Promise<DuckDBConnection> {
    const connection = await this.instance.connect();
    this.readers.add(connection);
    return connection;
  }

  /**
   * Stores the rows of `select` (the event columns, named as in EventRow; ids
   * unique per site and ts) exactly as saveEvents would: for bulk loads such as the
   * benchmark's seed, which would take minutes through the appender.
   */
  async saveSelected(select: string): Promise<void> {
    if (this.closed) throw new Error('event store is closed');
    await this.throughSlot(
      async (slot) => {
        await this.stager.run(emptyTableSql(slotTables(slot).rows));
        await this.stager.run(`INSERT INTO ${slotName(slot)} BY NAME ${select}`);
        await this.stager.run(batchFlagsSql(slotName(slot)));
      },
      async (slot) => {
        const source = slotSource(slot);
        const [range] = (await this.writer.runAndReadAll(`SELECT min(ts) AS min, max(ts) AS max FROM ${source}`)).getRowObjectsJS();
        if (range?.min === null || range?.min === undefined) return;
        await this.insert(source, BigInt(range.min as bigint), BigInt(range.max as bigint), true, { hasAppends: true, hasVisitors: true });
      },
    );
  }

  /** One transaction: the rows and the flags they move on older rows. */
  private async insert(source: string, min: bigint, max: bigint, late: boolean, shape: BatchShape): Promise<void> {
    // Its flag updates could touch rows a running compaction moves.
    if (late) await this.compacting;
    await this.writer.run('BEGIN TRANSACTION');
    try {
      const inserted = await this.writer.run(insertNewSql(source, min, max, shape));
      if (late) for (const table of [MAIN_TABLE, FRESH_TABLE]) await this.writer.run(unflagLaterFirstsSql(table, min, max));
      await this.writer.run('COMMIT');
      this.freshRows += Number(inserted.rowsChanged);
      this.newestTs = Math.max(this.newestTs, Number(max));
    } catch (e) {
      await this.writer.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  /** One transaction: a crash leaves the rows in the fresh table, never in both or neither. */
  private async compactOn(connection: DuckDBConnection): Promise<void> {
    await connection.run('BEGIN TRANSACTION');
    try {
      await connection.run(compactSql);
      const moved = await connection.run(`DELETE FROM ${FRESH_TABLE}`);
      await connection.run('COMMIT');
      this.freshRows -= Number(moved.rowsChanged);
    } catch (e) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  /**
   * Loads the batch into slot `slot`: its columns into the codes table through
   * the appender, a data chunk at a time (chunk-stager.ts), with the batch
   * flags, and the dictionary of its repeated texts beside them.
   */
  private async stage(batch: readonly EventRow[], slot: number): Promise<void> {
    const flags = batchFlags(batch);
    const columns: StageColumn<EventRow>[] = [
      ...COLUMNS,
      { kind: 'bool', value: (_, i) => flags.replay[i] },
      { kind: 'bool', value: (_, i) => flags.first[i] },
    ];
    const tables = slotTables(slot);
    await this.stager.run(emptyTableSql(tables.codes));
    await this.stager.run(emptyTableSql(tables.dict));
    const appender = await this.stager.createAppender(codesTable(slot), null, STAGE_DB);
    let dictionary: string[];
    try {
      dictionary = appendChunks(appender, columns, batch);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    await this.stager.run(`INSERT INTO ${dictName(slot)} VALUES ($dict::VARCHAR[])`, { dict: listValue(dictionary) });
  }
}

/** The hostnames' current registration keys; a hostname nobody holds is absent (its rows get NO_REGISTRATION). */
export type RegistrationsOf = (hostnames: readonly string[]) => Promise<ReadonlyMap<string, string>>;

/**
 * The layout's version, kept in a table of its own. 1: the two tables behind
 * the `events` view. 2: every row carries its registration key.
 */
export const SCHEMA_VERSION = 2;
const SCHEMA_TABLE = 'tinytrack_schema';

const tableExists = async (writer: DuckDBConnection, table: string) =>
  (await writer.runAndReadAll(`SELECT 1 FROM duckdb_tables() WHERE table_name = '${table}' AND schema_name = 'main'`)).currentRowCount > 0;
const columnExists = async (writer: DuckDBConnection, table: string, column: string) =>
  (await writer.runAndReadAll(`SELECT 1 FROM duckdb_columns() WHERE table_name = '${table}' AND column_name = '${column}' AND schema_name = 'main'`))
    .currentRowCount > 0;

/**
 * Brings an older file to SCHEMA_VERSION in one transaction, so a crash
 * leaves it as it was and the next start runs it again; a file at the
 * version is left alone. Steps:
 * - before the two-table layout (one `events` table): it becomes the main
 *   table, its flags computed once over all its rows;
 * - before registrations: each table is rewritten with a registration per
 *   row, the hostname's current registration if it has one, else none
 *   (NO_REGISTRATION, shown to no one). A hostname registered again since by
 *   another account cannot be told apart from one registered all along, so
 *   rows go to whoever holds the hostname when the migration runs.
 */
async function migrate(writer: DuckDBConnection, registrationsOf: RegistrationsOf): Promise<void> {
  await writer.run(`CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version INTEGER NOT NULL)`);
  const [stored] = (await writer.runAndReadAll(`SELECT max(version) AS version FROM ${SCHEMA_TABLE}`)).getRowObjectsJS();
  if (Number(stored?.version ?? 0) >= SCHEMA_VERSION) return;
  await writer.run('BEGIN TRANSACTION');
  try {
    const singleTable = await tableExists(writer, 'events');
    // The view over the tables is made again after the migration.
    if (!singleTable) await writer.run('DROP VIEW IF EXISTS events');
    const rewrites = singleTable ? [{ from: 'events', to: MAIN_TABLE }] : [];
    for (const table of [MAIN_TABLE, FRESH_TABLE]) {
      if ((await tableExists(writer, table)) && !(await columnExists(writer, table, 'registration'))) rewrites.push({ from: table, to: table });
    }
    for (const { from, to } of rewrites) await rewriteWithRegistrations(writer, from, to, registrationsOf);
    if (singleTable) await flagAll(writer);
    await writer.run(`DELETE FROM ${SCHEMA_TABLE}`);
    await writer.run(`INSERT INTO ${SCHEMA_TABLE} VALUES (${SCHEMA_VERSION})`);
    await writer.run('COMMIT');
  } catch (e) {
    await writer.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** What an older table lacks reads as: no registration, no flags (flagAll sets them for a single-table file). */
const MISSING_COLUMN: Record<string, string> = {
  registration: `'${NO_REGISTRATION}'`,
  replay: 'false',
  visitor_first: 'false',
  parent_ts: 'NULL',
};

/**
 * Copies `from` into `to` in the current layout (column order included; a
 * table is rewritten rather than altered, as DuckDB refuses to change a table
 * altered earlier in the same transaction), each row with its hostname's
 * current registration.
 */
async function rewriteWithRegistrations(writer: DuckDBConnection, from: string, to: string, registrationsOf: RegistrationsOf): Promise<void> {
  const sites = (await writer.runAndReadAll(`SELECT DISTINCT site FROM ${from}`)).getRowObjectsJS().map((r) => String(r.site));
  const current = sites.length > 0 ? await registrationsOf(sites) : new Map<string, string>();
  const known = sites.filter((site) => current.has(site));
  await writer.run('CREATE OR REPLACE TEMP TABLE registration_of (site VARCHAR, registration VARCHAR)');
  if (known.length > 0) {
    await writer.run(`INSERT INTO registration_of SELECT unnest($sites::VARCHAR[]), unnest($keys::VARCHAR[])`, {
      sites: listValue(known),
      keys: listValue(known.map((site) => current.get(site) as string)),
    });
  }
  const columns = [];
  for (const quoted of STORED_COLUMNS.split(', ')) {
    const name = quoted.replaceAll('"', '');
    if (name === 'registration') columns.push(`coalesce(m.registration, ${MISSING_COLUMN.registration})`);
    else columns.push((await columnExists(writer, from, name)) ? `e.${quoted}` : (MISSING_COLUMN[name] as string));
  }
  const target = from === to ? `${to}_next` : to;
  await writer.run(`CREATE TABLE ${target} (${STORED_DEFS})`);
  await writer.run(`INSERT INTO ${target} SELECT ${columns.join(', ')} FROM ${from} e LEFT JOIN registration_of m ON m.site = e.site ORDER BY e.site, e.ts`);
  await writer.run(`DROP TABLE ${from}`);
  if (target !== to) await writer.run(`ALTER TABLE ${target} RENAME TO ${to}`);
  await writer.run('DROP TABLE registration_of');
}

/** The writer's flags computed once over every row of the main table (a file from before the two-table layout). */
async function flagAll(writer: DuckDBConnection): Promise<void> {
  await writer.run(`
    UPDATE ${MAIN_TABLE} SET replay = true WHERE rowid IN (
      SELECT rowid FROM (SELECT rowid, row_number() OVER (PARTITION BY site, registration, kind, id_key ORDER BY ts, rowid) AS n FROM ${MAIN_TABLE}) WHERE n > 1)`);
  await writer.run(`
    UPDATE ${MAIN_TABLE} SET visitor_first = true WHERE rowid IN (
      SELECT rowid FROM (
        SELECT rowid, row_number() OVER (PARTITION BY site, registration, visitor_key, ts // 86400000 ORDER BY ts, rowid) AS n
        FROM ${MAIN_TABLE} x WHERE ${CANONICAL_PAGEVIEW('x')}
      ) WHERE n = 1)`);
  await writer.run(`
    UPDATE ${MAIN_TABLE} a SET parent_ts = (SELECT min(p.ts) FROM ${MAIN_TABLE} p WHERE ${PARENT_OF('p', 'a')} AND p.ts >= a.ts - ${APPEND_WINDOW_MS})
    WHERE a.kind = 'append'`);
}

function tsRange(rows: readonly EventRow[]): { min: bigint; max: bigint } {
  let min = Infinity;
  let max = -Infinity;
  for (const { ts } of rows) {
    if (ts < min) min = ts;
    if (ts > max) max = ts;
  }
  return { min: BigInt(Math.trunc(min)), max: BigInt(Math.trunc(max)) };
}
