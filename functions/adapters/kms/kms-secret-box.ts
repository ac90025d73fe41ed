/**
 * Secrets at rest on AWS: a KMS envelope. Each seal asks KMS for a fresh
 * AES-256 data key (GenerateDataKey, bound to the encryption context),
 * encrypts locally with AES-256-GCM and keeps only the encrypted data key;
 * opening asks KMS to decrypt that key under the same context. Plaintext keys
 * live only for the call. Sealed form:
 * `kms1.<encrypted data key>.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { contextAad, SecretBoxError, type SecretBox, type SecretContext } from '#ports/secret-box.ts';

const VERSION = 'kms1';
const IV_BYTES = 12;

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');

export class KmsSecretBox implements SecretBox {
  constructor(
    private readonly kms: KMSClient,
    /** Key id, ARN or alias of the KMS key. */
    private readonly keyId: string,
  ) {}

  async seal(plaintext: string, context: SecretContext): Promise<string> {
    const dataKey = await this.kms.send(new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: { ...context } }));
    if (!dataKey.Plaintext || !dataKey.CiphertextBlob) throw new SecretBoxError('KMS returned no data key');
    const key = Buffer.from(dataKey.Plaintext);
    try {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(contextAad(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, b64(dataKey.CiphertextBlob), b64(iv), b64(cipher.getAuthTag()), b64(ciphertext)].join('.');
    } finally {
      key.fill(0);
      dataKey.Plaintext.fill(0);
    }
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    const [version, encryptedKey, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !encryptedKey || iv === undefined || tag === undefined || ciphertext === undefined) {
      throw new SecretBoxError('not a sealed secret of this box');
    }
    const decrypted = await this.kms.send(
      new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: Buffer.from(encryptedKey, 'base64url'), EncryptionContext: { ...context } }),
    );
    if (!decrypted.Plaintext) throw new SecretBoxError('KMS returned no data key');
    const key = Buffer.from(decrypted.Plaintext);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(contextAad(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed secret does not open with this data key and context');
    } finally {
      key.fill(0);
      decrypted.Plaintext.fill(0);
    }
  }
}
