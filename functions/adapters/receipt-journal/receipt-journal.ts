/**
 * Durable receipt for the local runtime: a message is on disk before its
 * sender is answered, so a `kill -9` loses nothing that was acknowledged.
 *
 * Appends are group-committed: everything that arrives while a write is on
 * disk goes out in the next single synchronized write (O_DSYNC: durable when
 * it returns, as a write + fdatasync, in one system call), so the cost per message
 * falls as load rises. Messages live in numbered segment files; a segment is
 * deleted once it is closed and every message in it has been released (stored
 * or durably dead-lettered), which is how the journal is truncated as batches
 * commit. On open, what earlier runs left is handed back, oldest first.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '#ports/logger.ts';

/**
 * How a message becomes one journal line and back. The line is JSON (a torn
 * one is told by JSON.parse failing); `decode` gets the parsed value and must
 * also read the lines earlier versions wrote.
 */
export interface JournalCodec<T> {
  encode(message: T): string;
  decode(value: unknown): T;
}

/** Each message as its own JSON text. */
export const jsonCodec: JournalCodec<never> = { encode: (message) => JSON.stringify(message), decode: (value) => value as never };

export interface ReceiptJournalOptions<T> {
  /** Where a failed segment close or delete is reported (the journal goes on). */
  log: Logger;
  /** Default: each message as its JSON text. */
  codec?: JournalCodec<T>;
  /** A segment is closed (and a new one opened) past this size. Default 16 MiB. */
  segmentBytes?: number;
  /** ... or once it is this old, so released segments are deleted soon after their batches commit. Default 2 s. */
  segmentMs?: number;
}

/** Messages an earlier run journaled and never released, with the segment that holds them. */
export interface RecoveredSegment<T> {
  segment: number;
  messages: T[];
}

interface Segment {
  id: number;
  /** Null once closed (recovered segments are closed from the start). */
  file: FileHandle | null;
  bytes: number;
  openedAt: number;
  /** Journaled and not yet released. */
  outstanding: number;
}

interface Waiter {
  resolve(segment: number): void;
  reject(error: Error): void;
}

const SEGMENT_FILE = /^segment-(\d+)\.jsonl$/;
/**
 * Segments are opened for synchronized writes where the platform has them: one system call and one
 * thread-pool round trip per commit instead of two (a write, then an fdatasync), which measured about
 * half the event loop's CPU per commit. Elsewhere (Windows) each write is followed by a datasync.
 */
const DSYNC: number | undefined = constants.O_DSYNC;
const SEGMENT_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (DSYNC ?? 0);
const segmentName = (id: number) => `segment-${String(id).padStart(12, '0')}.jsonl`;

export class ReceiptJournal<T> {
  private readonly segments = new Map<number, Segment>();
  private current: Segment | null = null;
  private nextId: number;
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
    private readonly segmentMs: number,
    private readonly codec: JournalCodec<T>,
    private readonly log: Logger,
    firstId: number,
  ) {
    this.nextId = firstId;
  }

  /** Opens the journal in `dir` (created owner-only) and returns what earlier runs left unreleased. */
  static async open<T>(dir: string, options: ReceiptJournalOptions<T>): Promise<{ journal: ReceiptJournal<T>; recovered: RecoveredSegment<T>[] }> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const ids = (await readdir(dir))
      .map((name) => SEGMENT_FILE.exec(name)?.[1])
      .filter((id): id is string => id !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const codec = options.codec ?? (jsonCodec as JournalCodec<T>);
    const journal = new ReceiptJournal<T>(dir, options.segmentBytes ?? 16 * 1024 * 1024, options.segmentMs ?? 2_000, codec, options.log, (ids.at(-1) ?? 0) + 1);
    const recovered: RecoveredSegment<T>[] = [];
    for (const id of ids) {
      const messages = parseSegment(await readFile(join(dir, segmentName(id)), 'utf8'), codec);
      if (messages.length === 0) {
        await unlink(join(dir, segmentName(id)));
        continue;
      }
      journal.segments.set(id, { id, file: null, bytes: 0, openedAt: 0, outstanding: messages.length });
      recovered.push({ segment: id, messages });
    }
    return { journal, recovered };
  }

  /** Resolves with each message's segment once all of them are on disk; rejects when the disk write fails. */
  append(messages: readonly T[]): Promise<number> {
    if (this.closed) return Promise.reject(new Error('journal closed'));
    for (const message of messages) this.pending.push(this.codec.encode(message));
    const done = new Promise<number>((resolve, reject) => this.waiters.push({ resolve, reject }));
    // Whatever arrives in this turn of the event loop joins the same write.
    if (!this.writing) this.writing = new Promise<void>((ok) => setImmediate(() => ok(this.commitLoop())));
    return done;
  }

  /** `count` messages of `segment` are stored (or dead-lettered on disk): a closed segment with none left is deleted. */
  release(segment: number, count = 1): void {
    const s = this.segments.get(segment);
    if (!s) return;
    s.outstanding -= count;
    // An idle journal whose open segment is all stored closes it, so a restart has nothing to redo.
    if (s === this.current && s.outstanding === 0 && !this.writing) this.closeSegment(s).catch(this.logError);
    else this.dropIfDone(s);
  }

  /** Journaled messages not yet released. */
  outstanding(): number {
    let n = 0;
    for (const s of this.segments.values()) n += s.outstanding;
    return n;
  }

  /** Waits for the write in progress, then closes the open segment (deleted if nothing in it is outstanding). */
  async close(): Promise<void> {
    while (this.writing) await this.writing;
    this.closed = true;
    if (this.current) await this.closeSegment(this.current);
  }

  private async commitLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        const segment = await this.segmentForWrite();
        const data = Buffer.from(`${lines.join('\n')}\n`);
        await segment.file!.write(data);
        if (DSYNC === undefined) await segment.file!.datasync();
        segment.bytes += data.length;
        segment.outstanding += lines.length;
        for (const w of waiters) w.resolve(segment.id);
      } catch (e) {
        for (const w of waiters) w.reject(e as Error);
      }
    }
    this.writing = null;
  }

  private async segmentForWrite(): Promise<Segment> {
    const s = this.current;
    if (s && s.bytes < this.segmentBytes && performance.now() - s.openedAt < this.segmentMs) return s;
    if (s) await this.closeSegment(s);
    const id = this.nextId++;
    const file = await open(join(this.dir, segmentName(id)), SEGMENT_FLAGS, 0o600);
    const fresh: Segment = { id, file, bytes: 0, openedAt: performance.now(), outstanding: 0 };
    this.segments.set(id, fresh);
    this.current = fresh;
    return fresh;
  }

  private async closeSegment(s: Segment): Promise<void> {
    if (this.current === s) this.current = null;
    const file = s.file;
    s.file = null;
    await file?.close();
    this.dropIfDone(s);
  }

  private dropIfDone(s: Segment): void {
    if (s.file || s.outstanding > 0) return;
    this.segments.delete(s.id);
    unlink(join(this.dir, segmentName(s.id))).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.logError(e);
    });
  }

  private readonly logError = (e: unknown): void => {
    this.log.error('receipt journal', { message: (e as Error).message });
  };
}

/**
 * A segment's messages. A torn last line (the process died mid-write, before
 * its fdatasync returned) was never acknowledged, so it is skipped.
 */
function parseSegment<T>(text: string, codec: JournalCodec<T>): T[] {
  const out: T[] = [];
  const lines = text.split('\n');
  // The last piece is '' after a complete line, or a torn one.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i] as string;
    if (!line) continue;
    try {
      out.push(codec.decode(JSON.parse(line)));
    } catch {
      // Only a torn write can produce this; it was not acknowledged.
    }
  }
  return out;
}
