/** Runtime configuration, parsed once from the environment into a frozen, typed object. */
import { z } from 'zod';

const Env = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  DATA_DIR: z.string().default('./.data'),
  TABLE_NAME: z.string().default('tinytrack'),
  AUTH_ISSUER: z.string().url().optional(),
  AUTH_AUDIENCE: z.string().optional(),
  AUTH_JWKS_URI: z.string().url().optional(),
  VERIFY_URL_TEMPLATE: z.string().default('https://{hostname}/'),
  VERIFY_ALLOW_PRIVATE_ADDRESSES: z.enum(['0', '1', '']).default('0'),
  TRUST_PROXY: z.enum(['0', '1', '']).default('0'),
  SIMPLEANALYTICS_BASE_URL: z.string().default('https://simpleanalytics.com'),
  EVENT_QUEUE_URL: z.string().optional(),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  tableName: string;
  /** Unset: the local issuer of DESIGN.md §3. */
  auth: { issuer: string; audience: string | null; jwksUri: string } | null;
  verifyUrlTemplate: string;
  verifyAllowPrivateAddresses: boolean;
  trustProxy: boolean;
  simpleAnalyticsBaseUrl: string;
  /** AWS: the SQS queue between collector and writer. */
  eventQueueUrl: string | null;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = Env.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${issues}`);
  }
  const e = parsed.data;
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    dataDir: e.DATA_DIR,
    tableName: e.TABLE_NAME,
    auth: e.AUTH_ISSUER
      ? {
          issuer: e.AUTH_ISSUER,
          audience: e.AUTH_AUDIENCE ?? null,
          jwksUri: e.AUTH_JWKS_URI ?? `${e.AUTH_ISSUER.replace(/\/$/, '')}/.well-known/jwks.json`,
        }
      : null,
    verifyUrlTemplate: e.VERIFY_URL_TEMPLATE,
    verifyAllowPrivateAddresses: e.VERIFY_ALLOW_PRIVATE_ADDRESSES === '1',
    trustProxy: e.TRUST_PROXY === '1',
    simpleAnalyticsBaseUrl: e.SIMPLEANALYTICS_BASE_URL,
    eventQueueUrl: e.EVENT_QUEUE_URL ?? null,
  });
}
