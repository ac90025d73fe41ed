/**
 * Port: encryption of secrets at rest (import credentials). AWS: a KMS
 * envelope (a data key per secret, encrypted by the KMS key); locally:
 * AES-256-GCM under a key file in DATA_DIR. A sealed secret is bound to its
 * context (site and job), so it cannot be opened for another job.
 * Implementations never log plaintexts.
 */
export type SecretContext = Readonly<Record<string, string>>;

export interface SecretBox {
  /** An opaque, printable sealed form of `plaintext`. */
  seal(plaintext: string, context: SecretContext): Promise<string>;
  /** The plaintext; throws SecretBoxError when the sealed form or the context does not match. */
  open(sealed: string, context: SecretContext): Promise<string>;
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/** The context as additional authenticated data: keys sorted, so the order given does not matter. */
export function contextAad(context: SecretContext): Buffer {
  return Buffer.from(JSON.stringify(Object.keys(context).sort().map((k) => [k, context[k]])));
}
