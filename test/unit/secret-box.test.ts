import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { LocalSecretBox, secretKeyPath } from '#adapters/local-secret-box/local-secret-box.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { SecretBoxError, type SecretBox } from '#ports/secret-box.ts';

const context = { site: 'shop.example', job_id: 'job-1' };

/** The same behaviour from every adapter. */
function secretBoxContract(name: string, make: () => SecretBox) {
  describe(`${name}: SecretBox contract`, () => {
    it('opens what it sealed, with the same context in any key order', async () => {
      const box = make();
      const sealed = await box.seal('sa_api_key_secret', context);
      expect(sealed).not.toContain('sa_api_key_secret');
      expect(await box.open(sealed, { job_id: 'job-1', site: 'shop.example' })).toBe('sa_api_key_secret');
    });

    it('seals the same secret differently each time', async () => {
      const box = make();
      expect(await box.seal('x', context)).not.toBe(await box.seal('x', context));
    });

    it('refuses another context and tampered ciphertext', async () => {
      const box = make();
      const sealed = await box.seal('sa_api_key_secret', context);
      await expect(box.open(sealed, { ...context, job_id: 'job-2' })).rejects.toBeInstanceOf(Error);
      const parts = sealed.split('.');
      const last = parts.at(-1) as string;
      parts[parts.length - 1] = (last[0] === 'A' ? 'B' : 'A') + last.slice(1);
      await expect(box.open(parts.join('.'), context)).rejects.toBeInstanceOf(Error);
      await expect(box.open('garbage', context)).rejects.toBeInstanceOf(SecretBoxError);
    });
  });
}

describe('LocalSecretBox', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tt-secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a 256-bit key file readable by the owner only, and reuses it', async () => {
    const a = LocalSecretBox.open(dir);
    const path = secretKeyPath(dir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(path, 'utf8'), 'base64')).toHaveLength(32);
    const sealed = await a.seal('s3cret', context);
    expect(await LocalSecretBox.open(dir).open(sealed, context)).toBe('s3cret');
  });

  it('cannot open what another key sealed', async () => {
    const other = mkdtempSync(join(tmpdir(), 'tt-secrets-'));
    try {
      const sealed = await LocalSecretBox.open(dir).seal('s3cret', context);
      await expect(LocalSecretBox.open(other).open(sealed, context)).rejects.toBeInstanceOf(SecretBoxError);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  secretBoxContract('LocalSecretBox', () => LocalSecretBox.open(dir));
});

describe('KmsSecretBox (aws-sdk-client-mock)', () => {
  const kms = mockClient(KMSClient);
  /** A fake KMS: data keys are "encrypted" with their context (a map: order does not matter), which Decrypt checks like KMS does. */
  const canonical = (ctx: Record<string, string> | undefined) => JSON.stringify(Object.entries(ctx ?? {}).sort());
  beforeEach(() => {
    kms.reset();
    kms.on(GenerateDataKeyCommand).callsFake((input) => {
      const key = Buffer.alloc(32, 7);
      return { Plaintext: new Uint8Array(key), CiphertextBlob: Buffer.from(`${canonical(input.EncryptionContext)}|${key.toString('hex')}`), KeyId: input.KeyId };
    });
    kms.on(DecryptCommand).callsFake((input) => {
      const [ctx, hex] = Buffer.from(input.CiphertextBlob).toString().split('|');
      if (ctx !== canonical(input.EncryptionContext)) throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
      return { Plaintext: new Uint8Array(Buffer.from(hex as string, 'hex')) };
    });
  });

  it('asks KMS for an AES-256 data key bound to the context, and decrypts it with the same context', async () => {
    const box = new KmsSecretBox(new KMSClient({ region: 'eu-west-1' }), 'alias/tinytrack-imports');
    const sealed = await box.seal('sa_api_key_secret', context);
    expect(sealed.startsWith('kms1.')).toBe(true);
    const generate = kms.commandCalls(GenerateDataKeyCommand)[0]?.args[0].input;
    expect(generate).toEqual({ KeyId: 'alias/tinytrack-imports', KeySpec: 'AES_256', EncryptionContext: context });
    expect(await box.open(sealed, context)).toBe('sa_api_key_secret');
    expect(kms.commandCalls(DecryptCommand)[0]?.args[0].input.EncryptionContext).toEqual(context);
  });

  secretBoxContract('KmsSecretBox', () => new KmsSecretBox(new KMSClient({ region: 'eu-west-1' }), 'alias/tinytrack-imports'));
});
