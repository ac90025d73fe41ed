import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { QueryCommand, TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { TimestreamImportLedger } from '#adapters/timestream/timestream-import-ledger.ts';

const tsq = mockClient(TimestreamQueryClient);
const ledger = () => new TimestreamImportLedger(new TimestreamQueryClient({ region: 'eu-west-1' }), 'tinytrack', 'events');
const varchar = { Type: { ScalarType: 'VARCHAR' as const } };
const S = { site: 's.example', registration: 'reg-s' };

beforeEach(() => tsq.reset());

describe('TimestreamImportLedger', () => {
  it('looks source ids up by site and registration, kind, time span and id list, escaping literals, reading every page', async () => {
    tsq
      .on(QueryCommand)
      .resolvesOnce({ ColumnInfo: [{ Name: 'source_id', ...varchar }, { Name: 'id', ...varchar }], Rows: [{ Data: [{ ScalarValue: 'a' }, { ScalarValue: 'import:j1:a' }] }], NextToken: 'p2' })
      .resolvesOnce({ ColumnInfo: [{ Name: 'source_id', ...varchar }, { Name: 'id', ...varchar }], Rows: [{ Data: [{ ScalarValue: "b'c" }, { ScalarValue: "import:j1:b'c" }] }] });
    const found = await ledger().findImported({ site: "shop's.example", registration: "reg-'1" }, 'event', ['a', "b'c", 'z'], 1000, 2000);
    expect(found).toEqual(new Map([['a', 'import:j1:a'], ["b'c", "import:j1:b'c"]]));
    const [first, second] = tsq.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(first?.QueryString).toBe(
      `SELECT source_id, min(id) AS id FROM "tinytrack"."events" WHERE site = 'shop''s.example' AND registration = 'reg-''1' AND kind = 'event' AND time BETWEEN from_milliseconds(1000) AND from_milliseconds(2000) AND imported = true AND source_id IN ('a', 'b''c', 'z') GROUP BY source_id`,
    );
    expect(second?.NextToken).toBe('p2');
  });

  it('splits long id lists over several statements', async () => {
    tsq.on(QueryCommand).resolves({ ColumnInfo: [], Rows: [] });
    await ledger().findImported(S, 'pageview', Array.from({ length: 1201 }, (_, i) => `id-${i}`), 0, 1);
    expect(tsq.commandCalls(QueryCommand)).toHaveLength(3);
  });

  it('reads a table without import columns as "nothing imported", and rethrows other errors', async () => {
    tsq.on(QueryCommand).rejects(Object.assign(new Error('line 1: Column imported does not exist'), { name: 'ValidationException' }));
    expect(await ledger().hasImported(S, 'pageview', 0, 1)).toBe(false);
    tsq.reset();
    tsq.on(QueryCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    await expect(ledger().hasImported(S, 'pageview', 0, 1)).rejects.toThrow('slow down');
  });

  it('answers whether anything is imported in a span', async () => {
    tsq.on(QueryCommand).resolves({ ColumnInfo: [{ Name: 'found', Type: { ScalarType: 'INTEGER' } }], Rows: [{ Data: [{ ScalarValue: '1' }] }] });
    expect(await ledger().hasImported(S, 'pageview', 5, 9)).toBe(true);
    expect(tsq.commandCalls(QueryCommand)[0]?.args[0].input.QueryString).toContain("kind = 'pageview' AND");
    expect(tsq.commandCalls(QueryCommand)[0]?.args[0].input.QueryString).toContain('LIMIT 1');
  });
});
