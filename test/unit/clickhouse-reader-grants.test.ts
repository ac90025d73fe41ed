/**
 * The reports reader's ClickHouse user needs no more than the README grants
 * it: SELECT on the database and INSERT on the rollup tables it caches
 * (READER_WRITES). Every statement the report store sends over random rows,
 * unfiltered and filtered reports alike (each sealed day built as a report
 * first needs it), is recorded: the reads are plain SELECTs and the only
 * writes are inserts into those tables. Runs on ClickHouse's engine
 * in-process (chDB).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseQueryRunner, ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import type { ClickHouseExecutor } from '#adapters/clickhouse/executor.ts';
import { READER_WRITES, readerGrants } from '#adapters/clickhouse/schema.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import { closeChdb, chdbExecutor } from '../support/chdb-executor.ts';
import { rolledEqualsRows } from '../contract/rollup-rows.ts';
import { log } from '#platform/log.ts';

let writer: ClickHouseEventStore;
/** Every statement the reader sent: its kind and its text. */
const sent: { kind: 'query' | 'command' | 'insert'; text: string }[] = [];
let reader: ClickHouseReportStore;
let plain: SqlReportStore;

beforeAll(async () => {
  writer = await ClickHouseEventStore.open(chdbExecutor(), `grants_${randomUUID().replaceAll('-', '')}`, log);
  const inner = writer.executor;
  const recording: ClickHouseExecutor = {
    query: (sql, params) => (sent.push({ kind: 'query', text: sql }), inner.query(sql, params)),
    command: (sql, params) => (sent.push({ kind: 'command', text: sql }), inner.command(sql, params)),
    insert: (table, rows) => (sent.push({ kind: 'insert', text: `INSERT INTO ${table}` }), inner.insert(table, rows)),
    close: async () => {},
  };
  const attached = ClickHouseEventStore.attach(recording, writer.database, log);
  reader = new ClickHouseReportStore(attached);
  plain = new SqlReportStore(new ClickHouseQueryRunner(attached));
});
afterAll(async () => {
  await writer.close();
  closeChdb();
});

const newSite = () => `grants-${randomUUID().slice(0, 8)}.example`;
/** `"db"."table"` or db.table → table. */
const tableOf = (target: string) => target.split('.').pop()!.replaceAll('"', '');

describe('the reports reader’s ClickHouse user', () => {
  it('reads with SELECTs and writes only the rollup tables READER_WRITES names, for unfiltered and filtered reports', async () => {
    // The writer stores the rows; every report runs on the reader's connection (its own rows store reads alike).
    const rows = new ClickHouseReportStore(writer, { rollups: false });
    // One seeded case each: every case sends every kind of report statement; more add time, not kinds.
    await rolledEqualsRows(writer, reader, rows, newSite, 1);
    await rolledEqualsRows(writer, reader, rows, newSite, 1, { plain });
    const writes = sent.filter((s) => s.kind !== 'query');
    expect(writes.length).toBeGreaterThan(0);
    const targets = new Set(writes.map((s) => tableOf(/^\s*INSERT INTO (\S+)/.exec(s.text)?.[1] ?? `not an insert: ${s.text.slice(0, 60)}`)));
    expect([...targets].sort()).toEqual([...READER_WRITES].sort());
    for (const s of sent.filter((q) => q.kind === 'query')) expect(s.text.trimStart(), s.text.slice(0, 80)).toMatch(/^(SELECT|WITH)\b/);
  }, 300_000);

  it('is granted exactly that in the README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const grant of readerGrants('tinytrack', 'tinytrack_reports')) expect(readme).toContain(grant);
  });
});
