/**
 * Rows the DuckDB writer builds from stored values: a bulk selection's
 * rows, and the targets the flag index hands to the SQL rules.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { COLUMNS } from './schema.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { Decisions } from '#domain/rows/flags/flag-index.ts';
import type { PreparedBatch } from '#domain/rows/flags/prepared-batch.ts';

/** An EventRow from a selection's named values: numbers as numbers, missing fields empty. */
export function rowOf(names: readonly string[], values: readonly unknown[]): EventRow {
  const row: Record<string, unknown> = {};
  for (const c of COLUMNS) row[c.name] = null;
  names.forEach((name, i) => {
    const v = values[i];
    row[name] = typeof v === 'bigint' ? Number(v) : v;
  });
  row.bot = row.bot === true;
  row.imported = row.imported === true;
  return row as unknown as EventRow;
}

/**
 * What the index marked for the SQL rules, as rows of the targets table:
 * (what, site, registration, kind, key, lo, hi).
 */
export function repairTargets(b: PreparedBatch, d: Decisions): DuckDBValue[][] {
  const targets: DuckDBValue[][] = [];
  const key = (lanes: Uint32Array, i: number) => (BigInt(lanes[2 * i + 1] as number) << 32n) | BigInt(lanes[2 * i] as number);
  b.rows.forEach((r, i) => {
    if (d.repairIdentity[i] === 1) targets.push(['identity', r.site, r.registration, r.kind, key(b.id, i), r.ts, r.ts]);
    if (d.repairVisitorDay[i] === 1 && b.hasVisitor[i] === 1) targets.push(['visitor_day', r.site, r.registration, r.kind, key(b.visitor, i), r.ts, r.ts]);
    if (d.repairParent[i] === 1) {
      if (r.kind === 'append' && b.hasParent[i] === 1) targets.push(['parent', r.site, r.registration, 'pageview', key(b.parent, i), r.ts, r.ts]);
      else if (r.kind === 'pageview') targets.push(['parent', r.site, r.registration, 'pageview', key(b.id, i), r.ts, r.ts]);
    }
  });
  return targets;
}

