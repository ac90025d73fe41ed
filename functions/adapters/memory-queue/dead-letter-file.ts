/**
 * The queue's dead-letter file: messages that kept failing, one JSON line
 * each, owner-only and synced before the journal lets go of them; replayed
 * by renaming the file aside first.
 */
import { appendFile, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

export class DeadLetterFile {
  constructor(readonly path: string) {}

  /** Appends `lines` and syncs them: durable before the caller releases their messages anywhere else. */
  async append(lines: string): Promise<void> {
    // Owner-only: the messages are visitors' rows and import chunks.
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await appendFile(this.path, lines, { mode: 0o600 });
    const file = await open(this.path, 'r');
    await file.datasync().finally(() => file.close());
  }

  /**
   * Hands every dead letter to `send` in chunks of `batchSize`, oldest first,
   * and returns how many were sent. The file is first renamed aside, so dead
   * letters written meanwhile go to a fresh file, and a replay cut short by a
   * crash is taken up again by the next one. Lines that are not JSON are
   * written back to the file.
   */
  async replay<T>(batchSize: number, send: (chunk: T[]) => Promise<void>): Promise<number> {
    const aside = `${this.path}.replaying`;
    let sent = await this.replayAside(aside, batchSize, send);
    try {
      await rename(this.path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return sent;
      throw e;
    }
    sent += await this.replayAside(aside, batchSize, send);
    return sent;
  }

  private async replayAside<T>(aside: string, batchSize: number, send: (chunk: T[]) => Promise<void>): Promise<number> {
    let text: string;
    try {
      text = await readFile(aside, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
    const messages: T[] = [];
    const unreadable: string[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        messages.push(JSON.parse(line) as T);
      } catch {
        unreadable.push(line);
      }
    }
    for (let i = 0; i < messages.length; i += batchSize) await send(messages.slice(i, i + batchSize));
    if (unreadable.length > 0) await appendFile(this.path, unreadable.map((line) => `${line}\n`).join(''), { mode: 0o600 });
    await unlink(aside);
    return messages.length;
  }
}
