/**
 * IconStore on one machine: one owner-only JSON file per site under
 * DATA_DIR/icons, replaced atomically (write, then rename), so a crash leaves
 * the old icon or the new one, never half of either.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IconStore, SiteIcon } from '#ports/icon-store.ts';

interface IconFile {
  checkedAt: string;
  contentType: string | null;
  /** base64 */
  body: string | null;
}

/** Registered hostnames are lowercase labels and dots; anything else never names a file here. */
const SAFE_NAME = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

export class IconFiles implements IconStore {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'icons');
  }

  private path(hostname: string): string {
    if (!SAFE_NAME.test(hostname)) throw new RangeError('not a stored hostname');
    return join(this.dir, `${hostname}.json`);
  }

  async get(hostname: string): Promise<SiteIcon | null> {
    let text: string;
    try {
      text = await readFile(this.path(hostname), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    const file = JSON.parse(text) as IconFile;
    const image = file.body !== null && file.contentType !== null ? { body: Buffer.from(file.body, 'base64'), contentType: file.contentType } : null;
    return { image, checkedAt: file.checkedAt };
  }

  async put(hostname: string, icon: SiteIcon): Promise<void> {
    const target = this.path(hostname);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file: IconFile = { checkedAt: icon.checkedAt, contentType: icon.image?.contentType ?? null, body: icon.image ? icon.image.body.toString('base64') : null };
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, JSON.stringify(file), { mode: 0o600 });
    await rename(temporary, target);
  }

  async delete(hostname: string): Promise<void> {
    await rm(this.path(hostname), { force: true });
  }
}
