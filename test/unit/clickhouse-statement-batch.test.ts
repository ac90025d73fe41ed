import { describe, expect, it } from 'vitest';
import { batchOf, groupsWithin, rowsOfBatch } from '#adapters/clickhouse/statement-batch.ts';

describe('ClickHouse statements sent as one request', () => {
  it('tags each statement, keeps every parameter, and carries the settings once', () => {
    const { text, params } = batchOf(
      [
        { text: 'SELECT {a0:UInt8} AS x', params: { a0: 1 } },
        { text: 'WITH t AS (SELECT 1 AS y) SELECT y FROM t', params: { b0: 'two' } },
      ],
      'join_use_nulls = 1',
    );
    expect(params).toEqual({ a0: 1, b0: 'two' });
    expect(text).toContain('FROM (SELECT {a0:UInt8} AS x) AS s0');
    expect(text).toContain('toUInt32(1) AS "statement"');
    expect(text.match(/SETTINGS/g)).toHaveLength(1);
    expect(text).toMatch(/SETTINGS join_use_nulls = 1, query_plan_remove_redundant_sorting = 0$/);
  });

  it('gives each statement its rows in their order, however the parts arrived interleaved', () => {
    const rows = [
      { statement: 1, n: '7', row: '{"name":"b"}' },
      { statement: '0', n: 3, row: '{"v":2}' },
      { statement: 1, n: 2, row: '{"name":"a"}' },
      { statement: 0, n: 1, row: '{"v":1}' },
    ];
    expect(rowsOfBatch(rows, 3)).toEqual([[{ v: 1 }, { v: 2 }], [{ name: 'a' }, { name: 'b' }], []]);
  });

  it('splits statements, in order, into requests whose parameters stay within a size, a larger statement alone', () => {
    const statement = (name: string, chars: number) => ({ text: name, params: { [name]: 'x'.repeat(chars) } });
    const [a, b, c, big, d] = [statement('a', 40), statement('b', 40), statement('c', 40), statement('big', 500), statement('d', 10)];
    expect(groupsWithin([a!, b!, c!, big!, d!], 110).map((g) => g.map((s) => s.text))).toEqual([['a', 'b'], ['c'], ['big'], ['d']]);
    expect(groupsWithin([], 110)).toEqual([]);
  });
});
