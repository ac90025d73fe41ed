/**
 * A batch of rows as the flag index and the stores' key columns read it: each
 * row's 64-bit keys (keys.ts) as lane pairs, computed once per batch, and the
 * composite keys the index's tables are keyed by.
 */
import { keyInto, mixInto } from './keys.ts';
import type { EventRow } from '#domain/rows/event-row.ts';

/** A batch's rows as the index and the store's key columns read them: keys as lane pairs (low, high). */
export interface PreparedBatch {
  rows: readonly EventRow[];
  /** Key of (site, registration). */
  pair: Uint32Array;
  id: Uint32Array;
  visitor: Uint32Array;
  parent: Uint32Array;
  hasVisitor: Uint8Array;
  hasParent: Uint8Array;
}

/** Computes the rows' keys. Rows of one (site, registration) share its key, computed once. */
export function prepareBatch(rows: readonly EventRow[]): PreparedBatch {
  const n = rows.length;
  const b: PreparedBatch = {
    rows,
    pair: new Uint32Array(2 * n),
    id: new Uint32Array(2 * n),
    visitor: new Uint32Array(2 * n),
    parent: new Uint32Array(2 * n),
    hasVisitor: new Uint8Array(n),
    hasParent: new Uint8Array(n),
  };
  const pairs = new Map<string, Map<string, number>>();
  for (let i = 0; i < n; i++) {
    const r = rows[i] as EventRow;
    let bySite = pairs.get(r.site);
    if (!bySite) pairs.set(r.site, (bySite = new Map()));
    const known = bySite.get(r.registration);
    if (known === undefined) {
      keyInto(`${r.site}\u0000${r.registration}`, b.pair, 2 * i);
      bySite.set(r.registration, i);
    } else {
      b.pair[2 * i] = b.pair[2 * known] as number;
      b.pair[2 * i + 1] = b.pair[2 * known + 1] as number;
    }
    keyInto(r.id, b.id, 2 * i);
    if (r.visitor !== null) {
      keyInto(r.visitor, b.visitor, 2 * i);
      b.hasVisitor[i] = 1;
    }
    if (r.original_id !== null) {
      keyInto(r.original_id, b.parent, 2 * i);
      b.hasParent[i] = 1;
    }
  }
  return b;
}

/** The composite key of an identity: its (site, registration) key, kind and id key. */
export function identityKey(pairLo: number, pairHi: number, kind: number, idLo: number, idHi: number, out: Uint32Array, at = 0): void {
  mixInto(pairLo, pairHi, idLo, idHi, kind + 1, out, at);
}

/** The composite key of a visitor-day (the day is the table's). */
export function visitorDayKey(pairLo: number, pairHi: number, visitorLo: number, visitorHi: number, out: Uint32Array, at = 0): void {
  mixInto(pairLo, pairHi, visitorLo, visitorHi, 16, out, at);
}
