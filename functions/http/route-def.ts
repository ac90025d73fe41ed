/**
 * What a route of the table is (method, path, group, auth, answers) and the
 * refusals routes share; every error text comes from functions/domain/errors.ts
 * or the parser that answers it.
 */
import type { z } from 'zod';
import * as s from './schemas.ts';
import type { RoutePattern } from './route-match.ts';
import { STATUS_OF_KIND } from './refusals.ts';
import {
  InternalError,
  InvalidInputError,
  InvalidKeyError,
  KeysForbiddenError,
  RateLimitedError,
  ChecksRateLimitedError,
  ScopeRequiredError,
  SignInRequiredError,
  StoreUnavailableError,
  UnknownSiteError,
  type FixedRefusal,
  type RefusalKind,
} from '#domain/errors.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'ANY';
/** One Lambda function per group in AWS. */
export type RouteGroup = 'meta' | 'account' | 'sites' | 'collector' | 'reports' | 'imports' | 'ingest' | 'alerts' | 'goals' | 'digests' | 'live' | 'search' | 'crawlers' | 'data' | 'export';
export type Scope = 'read' | 'manage' | 'ingest';

/**
 * none: no credential; account: ID token or key with `scope`; id_token: ID
 * token only; site: anonymous for verified public sites, else owner (ID or key
 * with `scope`); api_key: a site API key, or a management key with `scope`
 * (POST /api/ingest); owner: the owner only (ID or key with `scope`), also for
 * public sites, a missing, invalid or expired token reading as no access (404
 * `unknown site`, spec part 5 rule 9: private reads of owner-only data); user: an ID token
 * only, a management key being no credential at all (401 `sign in required`, `/api/live/...`).
 */
export type AuthMode = 'none' | 'account' | 'id_token' | 'site' | 'api_key' | 'owner' | 'user';

export interface ResponseDef {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** The exact `error` texts of a JSON error answer. */
  errors?: readonly string[];
  /** Response headers: name → description. */
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: HttpMethod;
  /** API Gateway path syntax: /api/sites/{hostname} */
  path: string;
  group: RouteGroup;
  auth: AuthMode;
  scope?: Scope;
  summary: string;
  /** Query parameters: name → description; a leading `Required: ` marks one the route cannot do without. */
  query?: Record<string, string>;
  request?: z.ZodType;
  responses: Record<number, ResponseDef>;
}

export const routeKey = (r: RoutePattern): string => `${r.method} ${r.path}`;

/** A JSON error answer with these exact texts (spec part 7). */
const err = (errors: readonly string[]): ResponseDef => ({ description: errors.join('; '), schema: s.ErrorBody, errors });

/** What a route may refuse with, for its document: a refusal class, or a kind with the texts a parser answers. */
export type Refusable = FixedRefusal | { readonly kind: RefusalKind; readonly texts: readonly string[] };

/** A parser's refusals (`InvalidInputError` with the texts the parser exports). */
export const invalidInput = (texts: readonly string[]): Refusable => ({ kind: InvalidInputError.kind, texts });

/** The error answers of a route, grouped under the status the edge gives each kind (functions/http/refusals.ts). */
export function refusals(...items: readonly Refusable[]): Record<number, ResponseDef> {
  const byStatus = new Map<number, { texts: string[]; retryAfter: number | null }>();
  for (const item of items) {
    const status = STATUS_OF_KIND[item.kind];
    const entry = byStatus.get(status) ?? { texts: [], retryAfter: null };
    for (const text of 'texts' in item ? item.texts : [item.text]) if (!entry.texts.includes(text)) entry.texts.push(text);
    if ('retryAfterSeconds' in item && item.retryAfterSeconds !== null) entry.retryAfter = item.retryAfterSeconds;
    byStatus.set(status, entry);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, { texts, retryAfter }]) => [status, { ...err(texts), ...(retryAfter === null ? {} : { headers: { 'Retry-After': `Seconds to wait: ${retryAfter}` } }) }]),
  );
}

const scopeRefusal = (scope: Scope): Refusable => ({ kind: ScopeRequiredError.kind, texts: [ScopeRequiredError.textFor(scope)] });
/** Routes for any signed-in caller. */
export const signIn: readonly Refusable[] = [SignInRequiredError, InvalidKeyError];
/** Routes for an ID token or a key with `scope`. */
export const scoped = (scope: Scope): readonly Refusable[] => [...signIn, scopeRefusal(scope)];
/** Routes for an ID token only. */
export const idOnly: readonly Refusable[] = [...signIn, KeysForbiddenError];
/** Checks that fetch a site's page on demand (verify, claim verify): 10 a minute per account and per site; the text names the wait. */
export const checksRateLimited: Refusable = { kind: ChecksRateLimitedError.kind, texts: [ChecksRateLimitedError.textFor('{seconds}')] };
/** Changes a management key may make: burst 60, then 1 per second. */
export const rateLimited: readonly Refusable[] = [RateLimitedError];
/** Reads of a site anyone may read when it is verified and public. */
export const siteReader: readonly Refusable[] = [InvalidKeyError, scopeRefusal('read'), UnknownSiteError];
/** Every product route's answers to a failure of its own (added by the OpenAPI document, not listed per route). */
export const FAILURE_RESPONSES = refusals(StoreUnavailableError, InternalError);

/** The common query parameters of the report routes. */
export const reportQuery = {
  from: 'Range start, Unix seconds (fractions round down); default to − 7 days',
  to: 'Range end, Unix seconds; default now. At most 400 days after from',
  tz: 'IANA timezone for calendar days and buckets; default UTC',
  filter:
    'Clauses joined by ";": dim:value (equals), dim!value (not equals), dim~value (contains); values URL-encoded. ' +
    'event:X keeps the visitors who did event X in the range (all their pageviews and events; event!X those who did not; rows without a visitor hash, imports, never match). ' +
    'language:en (a bare 2–3 letter subtag) matches en and every en-* tag, any case; language:en-GB is exact',
};
