import { describe, expect, it } from 'vitest';
import { batchOf, rowsOfBatch } from '#adapters/clickhouse/statement-batch.ts';

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
});
