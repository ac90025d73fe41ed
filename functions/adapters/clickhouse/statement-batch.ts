/**
 * Report statements asked for together (a report's several queries, issued
 * side by side) sent as one request: a UNION ALL in which each statement's
 * rows arrive as JSON text, tagged with the statement and their place in
 * its answer. One request per report instead of one per statement: one
 * connection and round trip to the server, which runs the parts side by side
 * as it would separate statements.
 */
import type { ClickHouseParams } from './executor.ts';

export interface Statement {
  /** The statement without SETTINGS (the batch carries them once). */
  text: string;
  /** Its bound parameters, named apart from every other statement's of the batch. */
  params: ClickHouseParams;
}

/**
 * Statements grouped in order, each group's parameters about `limit` characters at most (a
 * statement larger alone is a group of its own). Parameters travel in the request's URL, which a
 * server takes up to http_max_uri_size (1 MiB by default): reports arriving together (a
 * dashboard's panels on one server) stay within it.
 */
export function groupsWithin<S extends Statement>(statements: readonly S[], limit: number): S[][] {
  const groups: S[][] = [];
  let size = Infinity;
  for (const s of statements) {
    const own = JSON.stringify(s.params).length;
    if (size + own > limit) {
      groups.push([]);
      size = 0;
    }
    groups[groups.length - 1]!.push(s);
    size += own;
  }
  return groups;
}

/** A row of the batch's answer: which statement, its place in that statement's answer, the row as JSON. */
export interface BatchRow {
  statement: number | string;
  n: number | string;
  row: string;
}

/**
 * The statements as one. Each part keeps its rows' order: the row number is taken after the
 * statement's own ORDER BY and LIMIT, where its rows are one ordered stream, and no sort of a
 * part is dropped as redundant (the outer query names no order).
 */
export function batchOf(statements: readonly Statement[], settings: string): Statement {
  const parts = statements.map(
    (s, i) => `SELECT toUInt32(${i}) AS "statement", rowNumberInAllBlocks() AS "n", formatRowNoNewline('JSONEachRow', *) AS "row" FROM (${s.text}) AS s${i}`,
  );
  return {
    text: `${parts.join('\nUNION ALL\n')}\nSETTINGS ${settings}, query_plan_remove_redundant_sorting = 0`,
    params: Object.assign({}, ...statements.map((s) => s.params)) as ClickHouseParams,
  };
}

/** The batch's answer split back into each statement's rows, in their order. */
export function rowsOfBatch<T>(rows: readonly BatchRow[], count: number): T[][] {
  const tagged = rows.map((r) => ({ statement: Number(r.statement), n: Number(r.n), row: r.row }));
  tagged.sort((a, b) => a.statement - b.statement || a.n - b.n);
  const out: T[][] = Array.from({ length: count }, () => []);
  for (const t of tagged) out[t.statement]?.push(JSON.parse(t.row) as T);
  return out;
}
