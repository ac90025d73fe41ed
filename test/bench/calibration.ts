/**
 * A fixed amount of work, timed at the start and the end of every run: how fast this machine was
 * while the run measured, so that runs in different spells (this 2-vCPU machine's speed moves by
 * up to a factor of two over hours) can be compared. The work is the kind the reports do: a
 * distinct count and a grouped sum in an in-memory DuckDB, over generated rows.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { median, type BenchRow } from './stats.ts';

const QUERY = `SELECT i % 97 AS g, count(DISTINCT i % 1000003) AS d, sum(i * 7 % 13) AS s FROM range(4000000) t(i) GROUP BY g ORDER BY g`;
const TIMES = 7;

/** The median of TIMES runs of QUERY after one unmeasured run, in ms. */
export async function calibrate(): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(QUERY);
    const times: number[] = [];
    for (let i = 0; i < TIMES; i++) {
      const start = performance.now();
      await connection.run(QUERY);
      times.push(performance.now() - start);
    }
    return median(times);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The calibration row: the fixed query's time before and after the run (lower is a faster machine). */
export function calibrationRow(before: number, after: number): BenchRow {
  return {
    name: 'calibration: a fixed DuckDB query (distinct count of 4 M generated rows), before / after the run',
    value: `${before.toFixed(0)} / ${after.toFixed(0)} ms`,
  };
}
