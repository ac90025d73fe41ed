/** appendChunks against real DuckDB: every kind of column, nulls, odd values, several chunks. */
import { describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { appendChunks, STAGE_SQL, type StageColumn } from '#adapters/duckdb/chunk-stager.ts';

interface Row {
  text: string | null;
  coded: string | null;
  int: number | null;
  big: number;
  double: number | null;
  bool: boolean | null;
}

const COLUMNS: (StageColumn<Row> & { name: keyof Row })[] = [
  { name: 'text', kind: 'text', value: (r) => r.text },
  { name: 'coded', kind: 'coded', value: (r) => r.coded },
  { name: 'int', kind: 'int', value: (r) => r.int },
  { name: 'big', kind: 'bigint', value: (r) => r.big },
  { name: 'double', kind: 'double', value: (r) => r.double },
  { name: 'bool', kind: 'bool', value: (r) => r.bool },
];

async function roundTrip(rows: Row[]): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`CREATE TABLE t (${COLUMNS.map((col) => `"${col.name}" ${STAGE_SQL[col.kind]}`).join(', ')}, n INTEGER)`);
    const appender = await c.createAppender('t');
    const dictionary = appendChunks(appender, [...COLUMNS, { kind: 'int', value: (_, i) => i }], rows);
    appender.flushSync();
    appender.closeSync();
    const read = await c.runAndReadAll('SELECT * FROM t ORDER BY n');
    return read.getRowObjectsJS().map((r) => ({ ...r, coded: r.coded === null ? null : dictionary[(r.coded as number) - 1], big: Number(r.big) }));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

describe('appendChunks', () => {
  it('stores every kind of value as given, nulls included, across several chunks', async () => {
    const rows: Row[] = Array.from({ length: 5000 }, (_, i) => ({
      text: i % 7 === 0 ? null : `t-${i}-ünïcødé-${'x'.repeat(i % 40)}`,
      coded: i % 5 === 0 ? null : `path/${i % 13}`,
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
      { text: 'a\u0000b', coded: 'c\u0000d', int: 2.6, big: -1, double: Number.NaN, bool: true },
      { text: '', coded: '', int: 2 ** 31, big: 2 ** 53 - 1, double: Number.POSITIVE_INFINITY, bool: false },
      { text: 'x', coded: 'y', int: -(2 ** 31) - 1, big: 0, double: -0.5, bool: null },
    ];
    expect(await roundTrip(rows)).toEqual([
      { text: 'a\u0000b', coded: 'c\u0000d', int: 3, big: -1, double: null, bool: true, n: 0 },
      { text: '', coded: '', int: null, big: 2 ** 53 - 1, double: null, bool: false, n: 1 },
      { text: 'x', coded: 'y', int: null, big: 0, double: -0.5, bool: null, n: 2 },
    ]);
  });
});
