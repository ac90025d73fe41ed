/**
 * Brings an older events file to SCHEMA_VERSION. 1: the two tables behind the
 * `events` view. 2: every row carries its registration key. 3: the identity
 * keys are computed by domain/rows/flags/keys.ts (not DuckDB's `hash`) and
 * the flags follow the set rules of flag-rules-sql.ts.
 */
import { listValue, UBIGINT, VARCHAR, DuckDBScalarFunction, type DuckDBConnection, type DuckDBVarCharVector, type DuckDBUBigIntVector } from '@duckdb/node-api';
import { FRESH_TABLE, KEY_COLUMNS, MAIN_TABLE, STORED_COLUMNS, STORED_DEFS } from './schema.ts';
import { flagRuleStatements } from './flag-rules-sql.ts';
import { inTransaction } from './transaction.ts';
import { keyOf } from '#domain/rows/flags/keys.ts';
import { NO_REGISTRATION } from '#domain/registration.ts';

export const SCHEMA_VERSION = 3;
const SCHEMA_TABLE = 'tinytrack_schema';

/** The hostnames' current registration keys; a hostname nobody holds is absent (its rows get NO_REGISTRATION). */
export type RegistrationsOf = (hostnames: readonly string[]) => Promise<ReadonlyMap<string, string>>;

const tableExists = async (writer: DuckDBConnection, table: string) =>
  (await writer.runAndReadAll(`SELECT 1 FROM duckdb_tables() WHERE table_name = '${table}' AND schema_name = 'main'`)).currentRowCount > 0;
const columnExists = async (writer: DuckDBConnection, table: string, column: string) =>
  (await writer.runAndReadAll(`SELECT 1 FROM duckdb_columns() WHERE table_name = '${table}' AND column_name = '${column}' AND schema_name = 'main'`))
    .currentRowCount > 0;

/** `tt_key(text)`: the identity key of a text, in SQL (null stays null). */
function registerKeyFunction(writer: DuckDBConnection): void {
  writer.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'tt_key',
      returnType: UBIGINT,
      parameterTypes: [VARCHAR],
      specialHandling: true,
      mainFunction: (_, input, output) => {
        const texts = input.getColumnVector(0) as DuckDBVarCharVector;
        const keys = output as DuckDBUBigIntVector;
        for (let i = 0; i < input.rowCount; i++) {
          const text = texts.getItem(i);
          keys.setItem(i, text === null ? null : keyOf(text));
        }
        keys.flush();
      },
    }),
  );
}

/**
 * In one transaction, so a crash leaves the file as it was and the next
 * start runs it again; a file at the version is left alone. Steps:
 * - before the two-table layout (one `events` table): it becomes the main table;
 * - before registrations: each table is rewritten with a registration per
 *   row, the hostname's current registration if it has one, else none
 *   (NO_REGISTRATION, shown to no one). A hostname registered again since by
 *   another account cannot be told apart from one registered all along, so
 *   rows go to whoever holds the hostname when the migration runs;
 * - before version 3: keys computed again, flags recomputed over every row.
 */
export async function migrate(writer: DuckDBConnection, registrationsOf: RegistrationsOf): Promise<void> {
  await writer.run(`CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version INTEGER NOT NULL)`);
  const [stored] = (await writer.runAndReadAll(`SELECT max(version) AS version FROM ${SCHEMA_TABLE}`)).getRowObjectsJS();
  const version = Number(stored?.version ?? 0);
  if (version >= SCHEMA_VERSION) return;
  const singleTable = await tableExists(writer, 'events');
  const anyTable = singleTable || (await tableExists(writer, MAIN_TABLE));
  if (anyTable) registerKeyFunction(writer);
  await inTransaction(writer, async () => {
    // The view over the tables is made again after the migration.
    if (!singleTable) await writer.run('DROP VIEW IF EXISTS events');
    const rewrites = singleTable ? [{ from: 'events', to: MAIN_TABLE }] : [];
    for (const table of [MAIN_TABLE, FRESH_TABLE]) {
      if (!singleTable && (await tableExists(writer, table))) rewrites.push({ from: table, to: table });
    }
    for (const { from, to } of rewrites) await rewrite(writer, from, to, registrationsOf);
    if (rewrites.length > 0) {
      if (!(await tableExists(writer, FRESH_TABLE))) await writer.run(`CREATE TABLE ${FRESH_TABLE} (${STORED_DEFS})`);
      await writer.run(`CREATE OR REPLACE VIEW events AS SELECT * FROM ${MAIN_TABLE} UNION ALL SELECT * FROM ${FRESH_TABLE}`);
      for (const statement of flagRuleStatements([MAIN_TABLE, FRESH_TABLE], false)) await writer.run(statement);
    }
    await writer.run(`DELETE FROM ${SCHEMA_TABLE}`);
    await writer.run(`INSERT INTO ${SCHEMA_TABLE} VALUES (${SCHEMA_VERSION})`);
  });
}

/** What an older table lacks reads as: no flags (recomputed after), no keys (computed). */
const MISSING_COLUMN: Record<string, string> = { replay: 'false', visitor_first: 'false', parent_ts: 'NULL' };
const KEY_SOURCE = new Map<string, string>(KEY_COLUMNS.map((k) => [k.name, k.from]));

/**
 * Copies `from` into `to` in the current layout (column order included; a
 * table is rewritten rather than altered, as DuckDB refuses to change a table
 * altered earlier in the same transaction): keys from tt_key, a registration
 * per row (kept when it has one, else its hostname's current one).
 */
async function rewrite(writer: DuckDBConnection, from: string, to: string, registrationsOf: RegistrationsOf): Promise<void> {
  const hasRegistration = await columnExists(writer, from, 'registration');
  const sites = hasRegistration ? [] : (await writer.runAndReadAll(`SELECT DISTINCT site FROM ${from}`)).getRowObjectsJS().map((r) => String(r.site));
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
    const keySource = KEY_SOURCE.get(name);
    if (name === 'registration') columns.push(hasRegistration ? 'e.registration' : `coalesce(m.registration, '${NO_REGISTRATION}')`);
    else if (keySource) columns.push(`tt_key(e."${keySource}")`);
    else columns.push((await columnExists(writer, from, name)) ? `e.${quoted}` : (MISSING_COLUMN[name] as string));
  }
  const target = from === to ? `${to}_next` : to;
  await writer.run(`CREATE TABLE ${target} (${STORED_DEFS})`);
  await writer.run(`INSERT INTO ${target} SELECT ${columns.join(', ')} FROM ${from} e LEFT JOIN registration_of m ON m.site = e.site ORDER BY e.site, e.ts`);
  await writer.run(`DROP TABLE ${from}`);
  if (target !== to) await writer.run(`ALTER TABLE ${target} RENAME TO ${to}`);
  await writer.run('DROP TABLE registration_of');
}
