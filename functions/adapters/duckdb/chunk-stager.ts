/**
 * Writes rows into DuckDB data chunks a column at a time, for the appender.
 * Every value through the appender is one call into the native module
 * (~70 ns, and texts pay a UTF-8 conversion on top): 36 of them made staging
 * the largest cost of a collected row on the event loop. Here numbers, flags,
 * nulls and 64-bit keys are written into typed arrays and copied into the
 * chunk with one call per column and chunk; only texts cost one call each.
 */
import duckdb from '@duckdb/node-bindings';
import { BIGINT, BOOLEAN, DOUBLE, DuckDBDataChunk, INTEGER, UBIGINT, VARCHAR, type DuckDBAppender, type DuckDBType } from '@duckdb/node-api';

/**
 * How a column is written: `text` string by string, `int` rounded to a
 * 32-bit integer (a stray fraction or an out-of-range number is null rather
 * than a failed batch), `bigint` an integral number, `double` a finite
 * number, `bool` a boolean, `key` an unsigned 64-bit key from `keys`
 * (lanes low, high per row; null where `present` is 0).
 */
export type StageKind = 'text' | 'int' | 'bigint' | 'double' | 'bool' | 'key';

export interface StageColumn<R> {
  kind: StageKind;
  value: (row: R, index: number) => string | number | boolean | null | undefined;
  keys?: Uint32Array;
  present?: Uint8Array;
}

const TYPES: Record<StageKind, DuckDBType> = { text: VARCHAR, int: INTEGER, bigint: BIGINT, double: DOUBLE, bool: BOOLEAN, key: UBIGINT };

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const TWO_32 = 2 ** 32;

const wide = (kind: StageKind) => kind === 'bigint' || kind === 'key';

/** DuckDB's string_t: a 4-byte length, then up to 12 bytes inline (zero-padded) or a prefix and a heap pointer. */
const STRING_BYTES = 16;
const INLINE_BYTES = 12;

/**
 * Writes `text` as an inline string_t at `at` when it is ASCII and short
 * enough (most repeated texts: kinds, paths, countries, browsers…), so the
 * whole column goes over in one copy; false for the rest, which the caller
 * assigns one by one.
 */
function inlineInto(text: string, bytes: Uint8Array, at: number): boolean {
  const n = text.length;
  if (n > INLINE_BYTES) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || c === 0) return false;
    bytes[at + 4 + i] = c;
  }
  bytes.fill(0, at + 4 + n, at + STRING_BYTES);
  bytes[at] = n;
  bytes[at + 1] = 0;
  bytes[at + 2] = 0;
  bytes[at + 3] = 0;
  return true;
}

/**
 * Writes rows `start` … `start + count - 1` of one column into its vector:
 * fixed-width values through `values` in one copy, short texts inline in the
 * same copy, long texts one call each, and the validity mask when a value is null.
 */
function stageColumn<R>(vector: duckdb.Vector, column: StageColumn<R>, rows: readonly R[], start: number, count: number, values: Int32Array | Uint8Array | Float64Array, mask: Uint8Array): void {
  mask.fill(255);
  let nulls = false;
  const long: number[] = [];
  const read = column.value;
  if (column.kind === 'key') {
    const keys = column.keys as Uint32Array;
    const present = column.present as Uint8Array;
    (values as Int32Array).set(new Int32Array(keys.buffer, keys.byteOffset + start * 8, count * 2));
    for (let i = 0; i < count; i++) {
      if (present[start + i] === 0) {
        mask[i >> 3] = (mask[i >> 3] as number) & ~(1 << (i & 7));
        nulls = true;
      }
    }
  }
  for (let i = 0; column.kind !== 'key' && i < count; i++) {
    const v = read(rows[start + i] as R, start + i);
    let valid = v !== null && v !== undefined;
    if (valid) {
      switch (column.kind) {
        case 'text':
          if (!inlineInto(v as string, values as Uint8Array, i * STRING_BYTES)) {
            (values as Uint8Array).fill(0, i * STRING_BYTES, (i + 1) * STRING_BYTES);
            long.push(i);
          }
          break;
        case 'int': {
          const n = Math.round(v as number);
          valid = Number.isFinite(n) && n >= INT32_MIN && n <= INT32_MAX;
          if (valid) values[i] = n;
          break;
        }
        case 'bigint': {
          const n = Math.trunc(v as number);
          const high = Math.floor(n / TWO_32);
          values[2 * i] = n - high * TWO_32;
          values[2 * i + 1] = high;
          break;
        }
        case 'double':
          valid = Number.isFinite(v);
          if (valid) values[i] = v as number;
          break;
        case 'bool':
          values[i] = v ? 1 : 0;
          break;
      }
    }
    if (!valid) {
      mask[i >> 3] = (mask[i >> 3] as number) & ~(1 << (i & 7));
      nulls = true;
      if (column.kind === 'text') (values as Uint8Array).fill(0, i * STRING_BYTES, (i + 1) * STRING_BYTES);
    }
  }
  const width = column.kind === 'text' ? STRING_BYTES : values.BYTES_PER_ELEMENT * (wide(column.kind) ? 2 : 1);
  duckdb.copy_data_to_vector(vector, 0, values.buffer as ArrayBuffer, 0, count * width);
  // The binding passes the text's byte length: a NUL inside stays (tested).
  for (const i of long) duckdb.vector_assign_string_element(vector, i, read(rows[start + i] as R, start + i) as string);
  if (nulls) {
    duckdb.vector_ensure_validity_writable(vector);
    duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer as ArrayBuffer, 0, mask.byteLength);
  }
}

/** Appends `rows` through `appender`, whose table has one column per entry of `columns` in that order. */
export function appendChunks<R>(appender: DuckDBAppender, columns: readonly StageColumn<R>[], rows: readonly R[]): void {
  const size = duckdb.vector_size();
  const types = columns.map((c) => TYPES[c.kind]);
  // Reused for every chunk: fixed-width values (8 bytes for BIGINT, UBIGINT and DOUBLE), validity bits.
  const data = columns.map((c) =>
    c.kind === 'bool' || c.kind === 'text' ? new Uint8Array(c.kind === 'text' ? size * STRING_BYTES : size) : wide(c.kind) ? new Int32Array(size * 2) : c.kind === 'double' ? new Float64Array(size) : new Int32Array(size),
  );
  const validity = columns.map(() => new Uint8Array(size / 8));
  for (let start = 0; start < rows.length; start += size) {
    const count = Math.min(size, rows.length - start);
    const chunk = DuckDBDataChunk.create(types);
    columns.forEach((column, c) => {
      stageColumn(duckdb.data_chunk_get_vector(chunk.chunk, c), column, rows, start, count, data[c] as Int32Array | Uint8Array | Float64Array, validity[c] as Uint8Array);
    });
    duckdb.data_chunk_set_size(chunk.chunk, count);
    appender.appendDataChunk(chunk);
  }
}
