/**
 * The local identity provider (DESIGN.md §3): an RSA key in DATA_DIR that
 * `npm run token` signs ID tokens with and the server verifies through the
 * same aws-jwt-verify path as Cognito.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { Jwks } from 'aws-jwt-verify/jwk';
import { OWNER_DIR, OWNER_FILE, ownDataDir } from './data-dir.ts';

export const LOCAL_ISSUER = 'https://tinytrack.local/issuer';
export const LOCAL_AUDIENCE = 'tinytrack-local';
export const LOCAL_JWKS_URI = `${LOCAL_ISSUER}/.well-known/jwks.json`;

interface IssuerKey {
  kid: string;
  privatePem: string;
}

/** Reads the issuer key, creating it once; concurrent first runs agree on one key. */
export function loadIssuerKey(dataDir: string): IssuerKey {
  const dir = join(dataDir, 'issuer');
  const file = join(dir, 'issuer-key.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as IssuerKey;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  ownDataDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: OWNER_DIR });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key: IssuerKey = { kid: randomBytes(8).toString('hex'), privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
  try {
    writeFileSync(file, JSON.stringify(key), { flag: 'wx', mode: OWNER_FILE });
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return JSON.parse(readFileSync(file, 'utf8')) as IssuerKey;
  }
}

export function issuerJwks(key: IssuerKey): Jwks {
  const { n, e } = createPublicKey(key.privatePem).export({ format: 'jwk' });
  return { keys: [{ kty: 'RSA', n: n as string, e: e as string, kid: key.kid, alg: 'RS256', use: 'sig' }] };
}

export async function mintIdToken(key: IssuerKey, sub: string, { ttlSeconds = 3600, email }: { ttlSeconds?: number; email?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { token_use: 'id', auth_time: now };
  if (email) claims.email = email;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setSubject(sub)
    .setIssuedAt(Math.min(now, now + ttlSeconds))
    .setExpirationTime(now + ttlSeconds)
    .sign(createPrivateKey(key.privatePem));
}
