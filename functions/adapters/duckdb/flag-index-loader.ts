/**
 * Reads a stored day into the flag index (domain/rows/flags/flag-index.ts):
 * its identities with their earliest and latest rows, its visitor-day firsts,
 * and the pages its appends (and the next day's) found none for. Numbers come
 * straight out of DuckDB's vectors: a day can hold millions of identities.
 */
import duckdb from '@duckdb/node-bindings';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DAY_MS } from '#domain/rows/days.ts';
import { type DayLoader, type DayWriter } from '#domain/rows/flags/flag-index.ts';
import { identityKey, visitorDayKey } from '#domain/rows/flags/prepared-batch.ts';
import { keyInto } from '#domain/rows/flags/keys.ts';
import { dayRuns } from '#domain/rows/days.ts';

/** The (site, registration) pairs of rows matching `where`, numbered from 0 in a fixed order. */
const pairsSql = (where: string) =>
  `SELECT site, registration, (row_number() OVER (ORDER BY site, registration) - 1)::UINTEGER AS pair
   FROM (SELECT DISTINCT site, registration FROM events WHERE ${where})`;

/** `ts` within days first..last and `extra` days after: one plain range the zone maps prune (an OR of ranges would not be). */
const daysWhere = (first: number, last: number, extra: number) => `ts >= ${first * DAY_MS} AND ts < ${(last + 1 + extra) * DAY_MS}`;

const lanes = (column: string) => `(${column} & 4294967295)::UINTEGER, (${column} >> 32)::UINTEGER`;

/** Streams a query whose columns are all UINTEGER (no nulls), a chunk at a time. */
async function eachChunk(connection: DuckDBConnection, sql: string, columns: number, onChunk: (data: Uint32Array[], count: number) => void): Promise<void> {
  const result = await connection.stream(sql);
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const count = chunk.rowCount;
    const data: Uint32Array[] = [];
    for (let c = 0; c < columns; c++) {
      const bytes = duckdb.vector_get_data(duckdb.data_chunk_get_vector(chunk.chunk, c), count * 4);
      data.push(new Uint32Array(bytes.buffer, bytes.byteOffset, count));
    }
    onChunk(data, count);
  }
}

export function duckDbDayLoader(connection: () => DuckDBConnection): DayLoader {
  return async (days, into) => {
    for (const [first, last] of dayRuns(days, Infinity)) await loadRun(connection(), first, last, into);
  };
}

/** Days first..last, consecutive, into `into(day)`. */
async function loadRun(db: DuckDBConnection, first: number, last: number, into: (day: number) => DayWriter): Promise<void> {
  // A day's own rows, and with the next day's: appends of the next day look back into it.
  const own = daysWhere(first, last, 0);
  const withNext = daysWhere(first, last, 1);
  const pairRows = (await db.runAndReadAll(`SELECT site, registration FROM (${pairsSql(withNext)}) ORDER BY pair`)).getRowObjectsJS();
  if (pairRows.length === 0) return;
  const pairKeys = new Uint32Array(2 * pairRows.length);
  pairRows.forEach((p, i) => keyInto(`${String(p.site)}\u0000${String(p.registration)}`, pairKeys, 2 * i));
  const key = new Uint32Array(2);
  const pairs = `(${pairsSql(withNext)})`;
  const rowsOf = (columns: string, where: string) =>
    `(SELECT site, registration, ${columns}, ts // ${DAY_MS} AS day FROM events WHERE (${where})) e JOIN ${pairs} p USING (site, registration)`;
  const kindCode = `CASE e.kind WHEN 'pageview' THEN 0 WHEN 'event' THEN 1 ELSE 2 END::UINTEGER`;
  const offset = (ts: string) => `(${ts} - e.day * ${DAY_MS})::UINTEGER`;
  await eachChunk(
    db,
    `SELECT e.day::UINTEGER, p.pair, ${kindCode}, ${lanes('e.id_key')}, ${offset('min(e.ts)')}, ${offset('max(e.ts)')}, bool_or(e.bot)::UINTEGER
     FROM ${rowsOf('kind, id_key, ts, bot', own)}
     GROUP BY e.day, p.pair, e.kind, e.id_key`,
    8,
    ([day, pair, kind, lo, hi, min, max, bot], count) => {
      for (let i = 0; i < count; i++) {
        const p = 2 * pair![i]!;
        identityKey(pairKeys[p]!, pairKeys[p + 1]!, kind![i]!, lo![i]!, hi![i]!, key);
        into(day![i]!).addIdentity(key[0]!, key[1]!, min![i]!, max![i]!, bot![i] === 1);
      }
    },
  );
  await eachChunk(
    db,
    `SELECT e.day::UINTEGER, p.pair, ${lanes('e.visitor_key')}, ${offset('min(e.ts)')}
     FROM ${rowsOf('visitor_key, ts', `visitor_first AND (${own})`)}
     GROUP BY e.day, p.pair, e.visitor_key`,
    5,
    ([day, pair, lo, hi, first], count) => {
      for (let i = 0; i < count; i++) {
        const p = 2 * pair![i]!;
        visitorDayKey(pairKeys[p]!, pairKeys[p + 1]!, lo![i]!, hi![i]!, key);
        into(day![i]!).addFirst(key[0]!, key[1]!, first![i]!);
      }
    },
  );
  // An orphan append of day d counts for d and for d - 1, whichever of them is wanted.
  await eachChunk(
    db,
    `SELECT DISTINCT e.day::UINTEGER, p.pair, ${lanes('e.parent_key')}
     FROM ${rowsOf('parent_key', `kind = 'append' AND parent_ts IS NULL AND parent_key IS NOT NULL AND (${withNext})`)}`,
    4,
    ([day, pair, lo, hi], count) => {
      for (let i = 0; i < count; i++) {
        const p = 2 * pair![i]!;
        identityKey(pairKeys[p]!, pairKeys[p + 1]!, 0, lo![i]!, hi![i]!, key);
        for (const d of [day![i]!, day![i]! - 1]) if (d >= first && d <= last) into(d).addOrphan(key[0]!, key[1]!);
      }
    },
  );
}
