/** appendChunks against real DuckDB: every kind of column, nulls, odd values, several chunks. */
import { describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { appendChunks, type StageColumn, type StageKind } from '#adapters/duckdb/chunk-stager.ts';

const SQL: Record<StageKind, string> = { text: 'VARCHAR', int: 'INTEGER', bigint: 'BIGINT', double: 'DOUBLE', bool: 'BOOLEAN', key: 'UBIGINT' };

interface Row {
  text: string | null;
  key: bigint | null;
  int: number | null;
  big: number;
  double: number | null;
  bool: boolean | null;
}

const COLUMNS: (StageColumn<Row> & { name: keyof Row })[] = [
  { name: 'text', kind: 'text', value: (r) => r.text },
  { name: 'int', kind: 'int', value: (r) => r.int },
  { name: 'big', kind: 'bigint', value: (r) => r.big },
  { name: 'double', kind: 'double', value: (r) => r.double },
  { name: 'bool', kind: 'bool', value: (r) => r.bool },
];

async function roundTrip(rows: Row[]): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`CREATE TABLE t (${COLUMNS.map((col) => `"${col.name}" ${SQL[col.kind]}`).join(', ')}, key UBIGINT, n INTEGER)`);
    const appender = await c.createAppender('t');
    // Keys come as lane pairs (low, high) beside the rows.
    const keys = new Uint32Array(2 * rows.length);
    const present = new Uint8Array(rows.length);
    rows.forEach((r, i) => {
      if (r.key === null) return;
      keys[2 * i] = Number(r.key & 0xffffffffn);
      keys[2 * i + 1] = Number(r.key >> 32n);
      present[i] = 1;
    });
    appendChunks(appender, [...COLUMNS, { kind: 'key', value: () => null, keys, present }, { kind: 'int', value: (_, i) => i }], rows);
    appender.flushSync();
    appender.closeSync();
    const read = await c.runAndReadAll('SELECT * FROM t ORDER BY n');
    return read.getRowObjectsJS().map((r) => ({ ...r, big: Number(r.big) }));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

describe('appendChunks', () => {
  it('stores every kind of value as given, nulls included, across several chunks', async () => {
    const rows: Row[] = Array.from({ length: 5000 }, (_, i) => ({
      text: i % 7 === 0 ? null : `t-${i}-ünïcødé-${'x'.repeat(i % 40)}`,
      key: i % 5 === 0 ? null : (BigInt(i) * 0x9e3779b97f4a7c15n) % 2n ** 64n,
      int: i % 11 === 0 ? null : i - 2500,
      big: 1_750_000_000_000 + i * 1_000_003 - (i % 3 === 0 ? 2 * 1_750_000_000_000 : 0),
      double: i % 9 === 0 ? null : i / 8,
      bool: i % 4 === 0 ? null : i % 2 === 0,
    }));
    const stored = await roundTrip(rows);
    expect(stored).toEqual(rows.map((r, n) => ({ ...r, n })));
  });

  it('keeps texts holding NUL whole, rounds fractions, and stores values an INTEGER or DOUBLE cannot hold as null', async () => {
    const rows: Row[] = [
      { text: 'a\u0000b', key: 2n ** 64n - 1n, int: 2.6, big: -1, double: Number.NaN, bool: true },
      { text: '', key: 0n, int: 2 ** 31, big: 2 ** 53 - 1, double: Number.POSITIVE_INFINITY, bool: false },
      { text: 'x', key: null, int: -(2 ** 31) - 1, big: 0, double: -0.5, bool: null },
    ];
    expect(await roundTrip(rows)).toEqual([
      { text: 'a\u0000b', key: 2n ** 64n - 1n, int: 3, big: -1, double: null, bool: true, n: 0 },
      { text: '', key: 0n, int: null, big: 2 ** 53 - 1, double: null, bool: false, n: 1 },
      { text: 'x', key: null, int: null, big: 0, double: -0.5, bool: null, n: 2 },
    ]);
  });
});
