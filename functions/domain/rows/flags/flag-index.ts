/**
 * The writer's flags, decided in memory: which rows are copies of an earlier one (the `replay` flag),
 * which pageview is the first of its visitor-day (`visitor_first`), and which
 * page an append belongs to (`parent_ts`). The rules are stated as sets (the
 * SQL form in adapters/duckdb/flag-rules-sql.ts recomputes them from the
 * stored rows alone); this index answers them for a new row without reading
 * stored rows, so a batch costs the same whether the day holds ten rows or
 * ten million.
 *
 * Per UTC day it keeps, in typed-array hash tables (key-table.ts):
 * - each identity (registration, kind, id key) with the earliest and latest
 *   ts of its rows that day, and whether any is a bot: 17 bytes a slot;
 * - each visitor-day's first canonical pageview ts: 13 bytes a slot;
 * - the page identities that appends of the day (or the next) found no page
 *   for: 9 bytes a slot.
 * Tables grow by doubling at 3/4 full, so a slot is 1/0.75 to 1/0.375 of a key:
 * about 30 bytes an id and 23 bytes a visitor-day on average.
 *
 * A row the index cannot decide alone (it arrives before stored rows of its
 * identity or visitor-day, an append whose page has several rows, a page an
 * earlier append waited for, a day over the memory budget) is handed to the
 * store to recompute in SQL for just those identities: never a wrong flag, at
 * worst a slower batch.
 */
import { DAY_MS } from '../days.ts';
import { KeyTable } from './key-table.ts';
import { identityKey, visitorDayKey, type PreparedBatch } from './prepared-batch.ts';
import type { EventKind, EventRow } from '#domain/rows/event-row.ts';

/** A later row of an identity within this time of an earlier one is a copy (the stored flag keeps its first name, `replay`). */
export const COPY_WINDOW_MS = DAY_MS;
/** An append belongs to the earliest canonical page of its parent id within this time before it. */
export const APPEND_WINDOW_MS = DAY_MS;

export const KIND_CODE: Record<EventKind, number> = { pageview: 0, event: 1, append: 2 };
const PAGEVIEW = 0;
const APPEND = 2;
const BOT_BIT = 0x80000000;
const NO_FIRST = 0xffffffff;

/** What the index decided for a batch, row by row; `repair*` marks what the store recomputes in SQL. */
export interface Decisions {
  replay: Uint8Array;
  first: Uint8Array;
  /** NaN: no page. */
  parentTs: Float64Array;
  /** The row's identity: copy flags around it (and the pages and visitor-days they decide). */
  repairIdentity: Uint8Array;
  /** The row's visitor-day: its first. */
  repairVisitorDay: Uint8Array;
  /** The appends of a page identity (an append's parent, or a pageview's own id): their parent ts. */
  repairParent: Uint8Array;
  /** Days the batch touched: forget them if its write fails. */
  days: number[];
}

/** One UTC day of the index. */
class DayIndex {
  /** Identity → [earliest offset, latest offset | bot bit]. */
  readonly ids = new KeyTable(2);
  /** Visitor-day → offset of its first canonical pageview. */
  readonly firsts = new KeyTable(1);
  /** Page identities an append found no page for. */
  readonly orphans = new KeyTable(0);
  lastUse = 0;

  get bytes(): number {
    return this.ids.bytes + this.firsts.bytes + this.orphans.bytes;
  }

  addIdentity(lo: number, hi: number, min: number, max: number, bot: boolean): void {
    const slot = this.ids.insert(lo, hi);
    const [mins, maxes] = this.ids.values as [Uint32Array, Uint32Array];
    if (this.ids.added) {
      mins[slot] = min;
      maxes[slot] = max | (bot ? BOT_BIT : 0);
      return;
    }
    const stored = maxes[slot] as number;
    if (min < (mins[slot] as number)) mins[slot] = min;
    const latest = Math.max(stored & ~BOT_BIT, max);
    maxes[slot] = (latest | (bot || (stored & BOT_BIT) !== 0 ? BOT_BIT : 0)) >>> 0;
  }

  addFirst(lo: number, hi: number, offset: number): void {
    const slot = this.firsts.insert(lo, hi, NO_FIRST);
    const values = this.firsts.values[0] as Uint32Array;
    if (offset < (values[slot] as number)) values[slot] = offset;
  }

  addOrphan(lo: number, hi: number): void {
    this.orphans.insert(lo, hi);
  }
}

/** Writes a stored day's state into the index (the store reads it from its rows). */
export interface DayWriter {
  /** A stored identity's rows that day: keys from identityKey, offsets from the day's start. */
  addIdentity(lo: number, hi: number, min: number, max: number, bot: boolean): void;
  /** A stored visitor-day first: key from visitorDayKey. */
  addFirst(lo: number, hi: number, offset: number): void;
  /** A page identity an append of this day or the next found no page for: key from identityKey. */
  addOrphan(lo: number, hi: number): void;
}

/**
 * Reads days `days` (UTC days since the epoch, ascending, each once) of the
 * stored rows, each into `into(day)`: all at once, so a batch spanning a
 * month of days not held (an import) costs a few statements, not a few per day.
 */
export type DayLoader = (days: readonly number[], into: (day: number) => DayWriter) => Promise<void>;

export interface FlagIndexOptions {
  /** Bytes the tables may take together; past it, days are dropped (oldest use first) or decided in SQL. */
  budgetBytes: number;
  load: DayLoader;
  /** Warns once per day that does not fit. */
  onOverBudget?: (day: number, bytes: number) => void;
}

/** Days an identity's rows around day d can be on: d-2 (whether d-1's rows are copies) to d+1. */
const NEEDED_BEFORE = 2;
const NEEDED_AFTER = 1;

export class FlagIndex {
  private readonly days = new Map<number, DayIndex>();
  /** Days too big for the budget: batches touching them are decided in SQL. */
  private readonly tooBig = new Set<number>();
  private uses = 0;
  private readonly key = new Uint32Array(2);

  constructor(private readonly options: FlagIndexOptions) {}

  get bytes(): number {
    let total = 0;
    for (const day of this.days.values()) total += day.bytes;
    return total;
  }

  /** Days held, for tests and the bench. */
  get heldDays(): number[] {
    return [...this.days.keys()].sort((a, b) => a - b);
  }

  /**
   * Whether a stored row may have the row's (site, registration, id, ts):
   * an identity of its id (any kind) whose rows that day span its ts. A yes
   * is checked against the stored rows by the store; a no is certain.
   * Call after `decide` has loaded the day, or it answers yes.
   */
  mayBeStored(b: PreparedBatch, i: number): boolean {
    const r = b.rows[i] as EventRow;
    const dayNumber = Math.floor(r.ts / DAY_MS);
    const day = this.days.get(dayNumber);
    if (!day) return true;
    const offset = r.ts - dayNumber * DAY_MS;
    const [mins, maxes] = day.ids.values as [Uint32Array, Uint32Array];
    for (let kind = 0; kind < 3; kind++) {
      identityKey(b.pair[2 * i] as number, b.pair[2 * i + 1] as number, kind, b.id[2 * i] as number, b.id[2 * i + 1] as number, this.key);
      const slot = day.ids.find(this.key[0] as number, this.key[1] as number);
      if (slot >= 0 && (mins[slot] as number) <= offset && offset <= ((maxes[slot] as number) & ~BOT_BIT)) return true;
    }
    return false;
  }

  /** Loads the days the batch's rows need; false when one cannot be held (the batch is then decided in SQL). */
  hold(b: PreparedBatch): Promise<boolean> {
    return this.holdDays(this.neededDays(b));
  }

  /** Loads days (UTC days since the epoch); false when one cannot be held. */
  async holdDays(needed: readonly number[]): Promise<boolean> {
    if (needed.some((d) => this.tooBig.has(d))) return false;
    const use = ++this.uses;
    const missing = [...new Set(needed)].filter((d) => !this.days.has(d)).sort((a, b) => a - b);
    if (missing.length > 0) {
      const loaded = new Map(missing.map((d) => [d, new DayIndex()]));
      await this.options.load(missing, (d) => {
        const day = loaded.get(d);
        if (!day) throw new Error(`flag index: day ${d} was not asked for`);
        return day;
      });
      for (const [d, day] of loaded) this.days.set(d, day);
    }
    for (const d of needed) (this.days.get(d) as DayIndex).lastUse = use;
    return this.fitBudget(new Set(needed));
  }

  private neededDays(b: PreparedBatch): number[] {
    const days = new Set<number>();
    for (const r of b.rows) {
      const d = Math.floor(r.ts / DAY_MS);
      for (let x = d - NEEDED_BEFORE; x <= d + NEEDED_AFTER; x++) days.add(x);
    }
    return [...days];
  }

  /** Drops days the batch does not need, least recently used first, until the tables fit; false when the needed ones alone do not. */
  private fitBudget(needed: Set<number>): boolean {
    let total = this.bytes;
    if (total <= this.options.budgetBytes) return true;
    const spare = [...this.days.entries()].filter(([d]) => !needed.has(d)).sort((a, b) => a[1].lastUse - b[1].lastUse);
    for (const [d, day] of spare) {
      if (total <= this.options.budgetBytes) return true;
      total -= day.bytes;
      this.days.delete(d);
    }
    if (total <= this.options.budgetBytes) return true;
    // The largest needed day goes to SQL for good: it only grows.
    const [largest] = [...needed].map((d) => [d, this.days.get(d)?.bytes ?? 0] as const).sort((a, b) => b[1] - a[1]);
    if (largest) {
      this.tooBig.add(largest[0]);
      this.days.delete(largest[0]);
      this.options.onOverBudget?.(largest[0], largest[1]);
    }
    return false;
  }

  /**
   * Takes back a visitor-day's first after the store recomputed it (null:
   * none left), for a day held; keys from visitorDayKey.
   */
  setFirst(dayNumber: number, lo: number, hi: number, offset: number | null): void {
    const day = this.days.get(dayNumber);
    if (!day) return;
    const slot = day.firsts.insert(lo, hi, NO_FIRST);
    (day.firsts.values[0] as Uint32Array)[slot] = offset ?? NO_FIRST;
  }

  /** Forgets days (a failed write may have left them ahead of the store); they load again when needed. */
  forget(days: Iterable<number>): void {
    for (const d of days) this.days.delete(d);
  }

  /**
   * Decides the batch's flags and takes its rows into the index, as if
   * stored. `held` is what `hold` answered: when false, every row is marked
   * for repair and the days around the batch are forgotten (SQL decides; the
   * index reloads them from the stored rows when next needed).
   */
  decide(b: PreparedBatch, held: boolean): Decisions {
    const n = b.rows.length;
    const d: Decisions = {
      replay: new Uint8Array(n),
      first: new Uint8Array(n),
      parentTs: new Float64Array(n).fill(Number.NaN),
      repairIdentity: new Uint8Array(n),
      repairVisitorDay: new Uint8Array(n),
      repairParent: new Uint8Array(n),
      days: this.neededDays(b),
    };
    if (!held) {
      d.repairIdentity.fill(1);
      d.repairVisitorDay.fill(1);
      d.repairParent.fill(1);
      // Its rows change the tables of these days only (their own, and the day before's orphans).
      this.forget(d.days);
      return d;
    }
    const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => (b.rows[x] as EventRow).ts - (b.rows[y] as EventRow).ts || x - y);
    for (const i of order) this.decideRow(b, i, d);
    return d;
  }

  private decideRow(b: PreparedBatch, i: number, d: Decisions): void {
    const r = b.rows[i] as EventRow;
    const dayNumber = Math.floor(r.ts / DAY_MS);
    const offset = r.ts - dayNumber * DAY_MS;
    const today = this.days.get(dayNumber) as DayIndex;
    const kind = KIND_CODE[r.kind];
    const pairLo = b.pair[2 * i] as number;
    const pairHi = b.pair[2 * i + 1] as number;
    identityKey(pairLo, pairHi, kind, b.id[2 * i] as number, b.id[2 * i + 1] as number, this.key);
    const lo = this.key[0] as number;
    const hi = this.key[1] as number;

    // Copy: a row of the identity within the window before; a row within it after makes the row late.
    let earlier = false;
    let later = false;
    const here = this.span(today, lo, hi);
    if (here) {
      if (here.min < offset) earlier = true;
      if (here.max >= offset) later = true;
    }
    const before = this.span(this.days.get(dayNumber - 1), lo, hi);
    if (before && before.max >= offset) earlier = true;
    const after = this.span(this.days.get(dayNumber + 1), lo, hi);
    if (after && after.min <= offset) later = true;
    if (earlier) d.replay[i] = 1;
    if (later) {
      d.repairIdentity[i] = 1;
      d.repairVisitorDay[i] = 1;
      if (kind === PAGEVIEW) d.repairParent[i] = 1;
    }
    today.addIdentity(lo, hi, offset, offset, r.bot);

    // First of its visitor-day: the earliest canonical pageview.
    if (kind === PAGEVIEW && !r.bot && b.hasVisitor[i] === 1 && !earlier) {
      visitorDayKey(pairLo, pairHi, b.visitor[2 * i] as number, b.visitor[2 * i + 1] as number, this.key);
      const slot = today.firsts.find(this.key[0] as number, this.key[1] as number);
      const stored = slot < 0 ? NO_FIRST : ((today.firsts.values[0] as Uint32Array)[slot] as number);
      if (stored > offset) d.first[i] = 1;
      if (stored !== NO_FIRST && stored >= offset) d.repairVisitorDay[i] = 1;
      today.addFirst(this.key[0] as number, this.key[1] as number, offset);
    }

    // A page an earlier append waited for.
    if (kind === PAGEVIEW && !r.bot && !earlier) {
      if (today.orphans.find(lo, hi) >= 0) d.repairParent[i] = 1;
    }

    if (kind === APPEND && b.hasParent[i] === 1) this.decideParent(b, i, r.ts, dayNumber, d);
  }

  /** The earliest (offset) and latest rows of an identity on a day, or null. */
  private span(day: DayIndex | undefined, lo: number, hi: number): { min: number; max: number; bot: boolean } | null {
    if (!day) return null;
    const slot = day.ids.find(lo, hi);
    if (slot < 0) return null;
    const [mins, maxes] = day.ids.values as [Uint32Array, Uint32Array];
    const max = maxes[slot] as number;
    return { min: mins[slot] as number, max: (max & ~BOT_BIT) >>> 0, bot: (max & BOT_BIT) !== 0 };
  }

  /**
   * The append's page: the earliest canonical pageview of its parent id in
   * the window before it. Decided here when the parent id has at most one
   * row a day over the days that settle it; otherwise (or with no page yet,
   * which a late page may still fill) it is left to the store.
   */
  private decideParent(b: PreparedBatch, i: number, ts: number, dayNumber: number, d: Decisions): void {
    identityKey(b.pair[2 * i] as number, b.pair[2 * i + 1] as number, PAGEVIEW, b.parent[2 * i] as number, b.parent[2 * i + 1] as number, this.key);
    const lo = this.key[0] as number;
    const hi = this.key[1] as number;
    const rows: { ts: number; bot: boolean }[] = [];
    for (let x = dayNumber - NEEDED_BEFORE; x <= dayNumber; x++) {
      const s = this.span(this.days.get(x), lo, hi);
      if (!s) continue;
      if (s.min !== s.max) {
        d.repairParent[i] = 1;
        return;
      }
      rows.push({ ts: x * DAY_MS + s.min, bot: s.bot });
    }
    for (let k = 0; k < rows.length; k++) {
      const page = rows[k] as { ts: number; bot: boolean };
      if (page.bot || page.ts > ts || page.ts < ts - APPEND_WINDOW_MS) continue;
      const repeat = k > 0 && (rows[k - 1] as { ts: number }).ts >= page.ts - COPY_WINDOW_MS;
      if (repeat) continue;
      d.parentTs[i] = page.ts;
      return;
    }
    // No page yet: a page that arrives later within the window fills it in.
    (this.days.get(dayNumber) as DayIndex).addOrphan(lo, hi);
    this.days.get(dayNumber - 1)?.addOrphan(lo, hi);
  }
}
