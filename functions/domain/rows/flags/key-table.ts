/**
 * An open-addressing hash table of 64-bit keys in typed arrays, with a few
 * unsigned 32-bit value columns per key: the flag index holds millions of
 * identities a day, and a Map of objects would cost ~100 bytes each and keep
 * the garbage collector busy. Linear probing; grows by doubling at 3/4 full;
 * no deletion (the index drops whole days).
 *
 * Slot positions are scrambled with a per-table random seed, so keys a client
 * chose to share low bits do not pile into one probe run.
 */

/** Bytes a slot costs: two key lanes, the occupancy byte, the value columns. */
export const slotBytes = (columns: number) => 9 + 4 * columns;

const MIN_CAPACITY = 64;

export class KeyTable {
  private lo: Uint32Array;
  private hi: Uint32Array;
  private used: Uint8Array;
  /** The value columns; read and written by slot. */
  values: Uint32Array[];
  private mask: number;
  /** Keys held. */
  count = 0;
  private readonly seed = (Math.random() * 0x100000000) >>> 0;

  constructor(private readonly columns: number, capacity = MIN_CAPACITY) {
    let size = MIN_CAPACITY;
    while (size < capacity) size *= 2;
    this.lo = new Uint32Array(size);
    this.hi = new Uint32Array(size);
    this.used = new Uint8Array(size);
    this.values = Array.from({ length: columns }, () => new Uint32Array(size));
    this.mask = size - 1;
  }

  /** Bytes the table's arrays take. */
  get bytes(): number {
    return (this.mask + 1) * slotBytes(this.columns);
  }

  private start(lo: number, hi: number): number {
    const h = Math.imul(lo ^ this.seed, 0x9e3779b1) ^ Math.imul(hi, 0x85ebca6b);
    return (h ^ (h >>> 15)) & this.mask;
  }

  /** The key's slot, or -1. */
  find(lo: number, hi: number): number {
    for (let slot = this.start(lo, hi); ; slot = (slot + 1) & this.mask) {
      if (this.used[slot] === 0) return -1;
      if (this.lo[slot] === lo && this.hi[slot] === hi) return slot;
    }
  }

  /** Whether the last insert added its key (a field, so the hot path allocates nothing). */
  added = false;

  /**
   * The key's slot, added with every value `initial` when missing (`added`
   * tells which). A slot number stays valid until the next insert, which may grow the table.
   */
  insert(lo: number, hi: number, initial = 0): number {
    if ((this.count + 1) * 4 > (this.mask + 1) * 3) this.grow();
    let slot = this.start(lo, hi);
    for (; this.used[slot] !== 0; slot = (slot + 1) & this.mask) {
      if (this.lo[slot] === lo && this.hi[slot] === hi) {
        this.added = false;
        return slot;
      }
    }
    this.used[slot] = 1;
    this.lo[slot] = lo;
    this.hi[slot] = hi;
    for (const column of this.values) column[slot] = initial;
    this.count++;
    this.added = true;
    return slot;
  }

  private grow(): void {
    const { lo, hi, used, values } = this;
    const size = (this.mask + 1) * 2;
    this.lo = new Uint32Array(size);
    this.hi = new Uint32Array(size);
    this.used = new Uint8Array(size);
    this.values = Array.from({ length: this.columns }, () => new Uint32Array(size));
    this.mask = size - 1;
    for (let old = 0; old < used.length; old++) {
      if (used[old] === 0) continue;
      let slot = this.start(lo[old] as number, hi[old] as number);
      while (this.used[slot] !== 0) slot = (slot + 1) & this.mask;
      this.used[slot] = 1;
      this.lo[slot] = lo[old] as number;
      this.hi[slot] = hi[old] as number;
      for (let c = 0; c < this.columns; c++) (this.values[c] as Uint32Array)[slot] = (values[c] as Uint32Array)[old] as number;
    }
  }
}
