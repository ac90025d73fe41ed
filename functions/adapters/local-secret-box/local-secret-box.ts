/**
 * Secrets at rest on one machine: AES-256-GCM under a 256-bit key kept in
 * `DATA_DIR/secret-box.key` (mode 0600, created on first use with an
 * exclusive create, so concurrent first starts agree on one key). The
 * context is the additional authenticated data.
 * Sealed form: `local1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { contextAad, SecretBoxError, type SecretBox, type SecretContext } from '#ports/secret-box.ts';

const VERSION = 'local1';
const KEY_BYTES = 32;
const IV_BYTES = 12;

export const secretKeyPath = (dataDir: string): string => join(dataDir, 'secret-box.key');

/** The key in the file, created (0600) when missing. */
export function loadOrCreateKey(path: string): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, randomBytes(KEY_BYTES).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  // Also tightens a file someone created with a looser mode.
  chmodSync(path, 0o600);
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${path} does not hold a 256-bit key`);
  return key;
}

export class LocalSecretBox implements SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error('LocalSecretBox needs a 256-bit key');
  }

  static open(dataDir: string): LocalSecretBox {
    return new LocalSecretBox(loadOrCreateKey(secretKeyPath(dataDir)));
  }

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(contextAad(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) throw new SecretBoxError('not a sealed secret of this box');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(contextAad(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed secret does not open with this key and context');
    }
  }
}
