/**
 * The 64-bit keys of the rows' string identities (id, visitor hash, parent
 * id), stored beside them (`id_key`, `visitor_key`, `parent_key`) and used by
 * the writer's flag index and every report's distinct counts and joins. They
 * are computed here, not by a store's own hash function, so every store and
 * every engine version gives the same string the same key.
 *
 * Two 32-bit multiply-xorshift lanes over the UTF-16 code units, mixed into
 * each other at the end (the cyrb53 construction, kept at 64 bits). Not a
 * cryptographic hash: a client can make two of its own ids collide, which
 * only makes its own rows look like repeats of each other.
 */

/** A key as two unsigned 32-bit lanes, low first. */
export interface Key64 {
  lo: number;
  hi: number;
}

/** Writes the key of `text` into `out[at]` (low lane) and `out[at + 1]` (high lane). */
export function keyInto(text: string, out: Uint32Array, at: number): void {
  let h1 = 0xdeadbeef ^ text.length;
  let h2 = 0x41c6ce57 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out[at] = h1 >>> 0;
  out[at + 1] = h2 >>> 0;
}

/** The key of `text` as an unsigned 64-bit integer (for SQL parameters and tests). */
export function keyOf(text: string): bigint {
  const out = new Uint32Array(2);
  keyInto(text, out, 0);
  return (BigInt(out[1] as number) << 32n) | BigInt(out[0] as number);
}

/**
 * Mixes a key (lo, hi) with a second key and a small tag into `out[at]`,
 * `out[at + 1]`: the composite identities of the flag index (a registration's
 * pageview id, a registration's visitor). Each output lane depends on all
 * five inputs, so composites of different parts differ like unrelated keys.
 */
export function mixInto(aLo: number, aHi: number, bLo: number, bHi: number, tag: number, out: Uint32Array, at: number): void {
  let h1 = Math.imul(aLo ^ 0x9e3779b9 ^ tag, 0x85ebca6b);
  let h2 = Math.imul(aHi ^ 0x7f4a7c15, 0xc2b2ae35);
  h1 = Math.imul(h1 ^ (h1 >>> 15) ^ bLo, 0x27d4eb2f);
  h2 = Math.imul(h2 ^ (h2 >>> 13) ^ bHi, 0x165667b1);
  h1 = Math.imul(h1 ^ (h1 >>> 16) ^ h2, 0x85ebca6b);
  h2 = Math.imul(h2 ^ (h2 >>> 16) ^ h1, 0xc2b2ae35);
  h1 ^= h1 >>> 13;
  h2 ^= h2 >>> 15;
  out[at] = h1 >>> 0;
  out[at + 1] = h2 >>> 0;
}
