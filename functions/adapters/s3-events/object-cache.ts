/**
 * A bounded directory of fetched Parquet objects (issue 44): each object once, named by the hash
 * of its key and the ETag the manifest lists, so a changed object is never taken for the old
 * one; the least recently used are removed past the budget. Lambda's /tmp survives between
 * invocations of one instance, so a warm reports function reads most days from disk.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** Objects fetched at once. */
const FETCHES_IN_FLIGHT = 16;

export class ObjectCache {
  /** Cached files by path, least recently used first, with their sizes. */
  private readonly files = new Map<string, number>();
  private bytes = 0;

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly dir: string,
    private readonly budgetBytes: number,
  ) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Local paths of the objects, fetching the ones not cached. */
  async paths(objects: readonly { key: string; etag: string }[]): Promise<string[]> {
    const paths = objects.map((o) => join(this.dir, `${createHash('sha256').update(`${o.key}\u0000${o.etag}`).digest('hex').slice(0, 32)}.parquet`));
    const missing = objects.map((o, i) => ({ ...o, path: paths[i] as string })).filter((o) => !this.touch(o.path));
    for (let i = 0; i < missing.length; i += FETCHES_IN_FLIGHT) {
      await Promise.all(missing.slice(i, i + FETCHES_IN_FLIGHT).map((o) => this.fetch(o.key, o.path)));
    }
    return paths;
  }

  /** Removes the least recently used files past the budget; call once their rows are read. */
  trim(): void {
    for (const [path, size] of this.files) {
      if (this.bytes <= this.budgetBytes) break;
      rmSync(path, { force: true });
      this.files.delete(path);
      this.bytes -= size;
    }
  }

  private touch(path: string): boolean {
    const size = this.files.get(path);
    if (size === undefined) return false;
    this.files.delete(path);
    this.files.set(path, size);
    return true;
  }

  private async fetch(key: string, path: string): Promise<void> {
    const r = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const body = await r.Body?.transformToByteArray();
    if (!body) throw new Error(`s3 events: empty body for ${key}`);
    writeFileSync(path, body, { mode: 0o600 });
    const size = statSync(path).size;
    this.files.set(path, size);
    this.bytes += size;
  }
}
