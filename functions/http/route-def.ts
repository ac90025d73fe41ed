/**
 * What a route of the table is (method, path, group, auth, answers) and the
 * answers routes share: every error text written once here.
 */
import type { z } from 'zod';
import * as s from './schemas.ts';
import type { RoutePattern } from './route-match.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'ANY';
/** One Lambda function per group in AWS. */
export type RouteGroup = 'meta' | 'account' | 'sites' | 'collector' | 'reports' | 'imports';
export type Scope = 'read' | 'manage' | 'ingest';

/**
 * none: no credential; account: ID token or key with `scope`; id_token: ID
 * token only; site: anonymous for verified public sites, else owner (ID or key
 * with `scope`).
 */
export type AuthMode = 'none' | 'account' | 'id_token' | 'site';

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
export const err = (...errors: string[]): ResponseDef => ({ description: errors.join('; '), schema: s.ErrorBody, errors });
export const INVALID_KEY = 'invalid or revoked management key';
export const KEYS_FORBIDDEN = 'management keys cannot call this endpoint';
export const UNVERIFIED_OWNER = 'Install your tracking script to verify this site first';
export const IMPORT_ACTIVE = 'an import is already active for this site';
export const API_KEY_REQUIRED = 'API key is required';
export const signIn = { 401: err('sign in required', INVALID_KEY) };
export const scoped = (scope: Scope) => ({ ...signIn, 403: err(`scope ${scope} required`) });
export const idOnly = { ...signIn, 403: err(KEYS_FORBIDDEN) };
export const rateLimited = {
  429: { ...err('rate limited, retry in 1s'), description: 'rate limited, retry in 1s (management key changes)', headers: { 'Retry-After': 'Seconds to wait: 1' } },
};
export const ownerSite = { 404: err('unknown site') };
/** Every product route's answer to an unexpected failure (added by the OpenAPI document, not listed per route). */
export const INTERNAL_ERROR_RESPONSE = err('internal error');
