/**
 * Port: Search Console data (issue 41) in the event store, one table of
 * daily rows per site registration, dimension and name (DuckDB, ClickHouse;
 * not Timestream). Days are Google's (`YYYY-MM-DD`, Pacific time), ranges
 * are inclusive of both ends. Saving a row again replaces it, so a sync can
 * pull the same days twice.
 */
import type { SiteRef } from './report-store.ts';

export type SearchDim = 'queries' | 'pages' | 'countries' | 'devices';
/** `total` rows (name '') are the day's whole figures: Google leaves anonymized queries out of the query rows. */
export type StoredSearchDim = SearchDim | 'total';

export interface SearchRow {
  date: string;
  dim: StoredSearchDim;
  name: string;
  clicks: number;
  impressions: number;
  /** Google's average position of the row (1 = top). */
  position: number;
}

export interface SearchFigures {
  clicks: number;
  impressions: number;
  /** clicks / impressions; 0 without impressions. */
  ctr: number;
  /** Average position weighted by impressions; null without impressions. */
  position: number | null;
}

export interface SearchDay {
  date: string;
  clicks: number;
  impressions: number;
}

export interface SearchRange extends SiteRef {
  from: string;
  to: string;
}

export interface SearchStatsStore {
  saveSearchRows(ref: SiteRef, rows: readonly SearchRow[]): Promise<void>;
  /** The range's rows of `dim`, most clicks first (then impressions, then name). */
  searchBreakdown(range: SearchRange, dim: SearchDim, limit: number): Promise<(SearchFigures & { name: string })[]>;
  searchTotals(range: SearchRange): Promise<SearchFigures>;
  /** The days of the range that have a total row, oldest first. */
  searchDays(range: SearchRange): Promise<SearchDay[]>;
}

/** A site's link to a Search Console property; the refresh token only sealed (SecretBox, context `searchConsoleContext`). */
export interface SearchLinkRecord {
  site: string;
  owner_uid: string;
  /** The property (`https://example.com/` or `sc-domain:example.com`); null until the owner picks one. */
  property: string | null;
  sealed_refresh_token: string;
  linked_at: string;
  last_sync_at: string | null;
  last_error: string | null;
  /** The last day a sync stored (YYYY-MM-DD); null before the first. */
  synced_through: string | null;
}

export interface OAuthStateRecord {
  sub: string;
  site: string;
  verifier: string;
}

/** Search Console links and the OAuth states of their consent flows, in the registry. */
export interface SearchLinks {
  getLink(site: string): Promise<SearchLinkRecord | null>;
  putLink(link: SearchLinkRecord): Promise<void>;
  /** Changes a link that still exists; false when it is gone. */
  updateLink(site: string, patch: Partial<Pick<SearchLinkRecord, 'property' | 'last_sync_at' | 'last_error' | 'synced_through'>>): Promise<boolean>;
  deleteLink(site: string): Promise<void>;
  /** Every link with a property (the daily sync). */
  listLinks(): Promise<SearchLinkRecord[]>;
  /** Keeps a consent flow's state, by its hash, until `expiresAt` (Unix seconds). */
  createState(stateHash: string, state: OAuthStateRecord, expiresAt: number): Promise<void>;
  /** The state, removing it; null when unknown, used or expired. Two calls never both get it. */
  consumeState(stateHash: string, nowSeconds: number): Promise<OAuthStateRecord | null>;
}

/** What a sealed refresh token is bound to: its site and this purpose. */
export const searchConsoleContext = (site: string) => ({ site, purpose: 'search-console' });

/** One row of searchAnalytics.query: `keys` in the order of the dimensions asked for. */
export interface GoogleSearchRow {
  keys: string[];
  clicks: number;
  impressions: number;
  ctr: number;
  position: number;
}

export interface GoogleProperty {
  siteUrl: string;
  permissionLevel: string;
}

/** Google's OAuth client and base URLs (GOOGLE_*, functions/platform/config.ts); the client null when not set up. */
export interface GoogleSettings {
  clientId: string | null;
  clientSecret: string | null;
  redirectUri: string | null;
  authUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  apiUrl: string;
  /** The first wait after a 429 or a 5xx, doubling. */
  retryBaseMs: number;
}

/** Google's OAuth and Search Console APIs; failures are GoogleApiError (never carrying a token). */
export interface GoogleSearchClient {
  readonly configured: boolean;
  authorizeUrl(state: string, codeChallenge: string): string;
  /** The refresh token a consent's code gives. */
  exchangeCode(code: string, verifier: string): Promise<{ refreshToken: string; accessToken: string }>;
  accessToken(refreshToken: string): Promise<string>;
  listProperties(accessToken: string): Promise<GoogleProperty[]>;
  /** One page of searchAnalytics.query. */
  query(accessToken: string, property: string, request: { startDate: string; endDate: string; dimensions: string[]; rowLimit: number; startRow: number }): Promise<GoogleSearchRow[]>;
  /** Revokes the grant of a token; best effort (an already revoked grant is fine). */
  revoke(token: string): Promise<void>;
}
