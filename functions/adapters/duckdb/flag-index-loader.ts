/**
 * Reads a stored day into the flag index (domain/event-flags/flag-index.ts):
 * its identities with their earliest and latest rows, its visitor-day firsts,
 * and the pages its appends (and the next day's) found none for. Numbers come
 * straight out of DuckDB's vectors: a day can hold millions of identities.
 */
import duckdb from '@duckdb/node-bindings';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DAY_MS, type DayLoader, type DayWriter } from '#domain/event-flags/flag-index.ts';
import { identityKey, visitorDayKey } from '#domain/event-flags/prepared-batch.ts';
import { keyInto } from '#domain/event-flags/keys.ts';

/** The (site, registration) pairs of a ts range, numbered from 0 in a fixed order. */
const pairsSql = (from: number, to: number) =>
  `SELECT site, registration, (row_number() OVER (ORDER BY site, registration) - 1)::UINTEGER AS pair
   FROM (SELECT DISTINCT site, registration FROM events WHERE ts >= ${from} AND ts < ${to})`;

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
  return async (day: number, into: DayWriter) => {
    const from = day * DAY_MS;
    // Appends of the next day look back into this one.
    const to = from + 2 * DAY_MS;
    const db = connection();
    const pairRows = (await db.runAndReadAll(`SELECT site, registration FROM (${pairsSql(from, to)}) ORDER BY pair`)).getRowObjectsJS();
    if (pairRows.length === 0) return;
    const pairKeys = new Uint32Array(2 * pairRows.length);
    pairRows.forEach((p, i) => keyInto(`${String(p.site)}\u0000${String(p.registration)}`, pairKeys, 2 * i));
    const key = new Uint32Array(2);
    const pairs = `(${pairsSql(from, to)})`;
    const kindCode = `CASE e.kind WHEN 'pageview' THEN 0 WHEN 'event' THEN 1 ELSE 2 END::UINTEGER`;
    await eachChunk(
      db,
      `SELECT p.pair, ${kindCode}, ${lanes('e.id_key')}, (min(e.ts) - ${from})::UINTEGER, (max(e.ts) - ${from})::UINTEGER, bool_or(e.bot)::UINTEGER
       FROM events e JOIN ${pairs} p USING (site, registration) WHERE e.ts >= ${from} AND e.ts < ${from + DAY_MS}
       GROUP BY p.pair, e.kind, e.id_key`,
      7,
      ([pair, kind, lo, hi, min, max, bot], count) => {
        for (let i = 0; i < count; i++) {
          const p = 2 * (pair as Uint32Array)[i]!;
          identityKey(pairKeys[p]!, pairKeys[p + 1]!, kind![i]!, lo![i]!, hi![i]!, key);
          into.addIdentity(key[0]!, key[1]!, min![i]!, max![i]!, bot![i] === 1);
        }
      },
    );
    await eachChunk(
      db,
      `SELECT p.pair, ${lanes('e.visitor_key')}, (min(e.ts) - ${from})::UINTEGER
       FROM events e JOIN ${pairs} p USING (site, registration) WHERE e.visitor_first AND e.ts >= ${from} AND e.ts < ${from + DAY_MS}
       GROUP BY p.pair, e.visitor_key`,
      4,
      ([pair, lo, hi, first], count) => {
        for (let i = 0; i < count; i++) {
          const p = 2 * pair![i]!;
          visitorDayKey(pairKeys[p]!, pairKeys[p + 1]!, lo![i]!, hi![i]!, key);
          into.addFirst(key[0]!, key[1]!, first![i]!);
        }
      },
    );
    await eachChunk(
      db,
      `SELECT DISTINCT p.pair, ${lanes('e.parent_key')}
       FROM events e JOIN ${pairs} p USING (site, registration)
       WHERE e.kind = 'append' AND e.parent_ts IS NULL AND e.parent_key IS NOT NULL AND e.ts >= ${from} AND e.ts < ${to}`,
      3,
      ([pair, lo, hi], count) => {
        for (let i = 0; i < count; i++) {
          const p = 2 * pair![i]!;
          identityKey(pairKeys[p]!, pairKeys[p + 1]!, 0, lo![i]!, hi![i]!, key);
          into.addOrphan(key[0]!, key[1]!);
        }
      },
    );
  };
}
