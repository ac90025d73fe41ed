/**
 * Port: the Cloudflare APIs crawler hits are read from (issue 41): the zones
 * a token can read (REST), and requests by user agent and path per hour
 * (GraphQL Analytics, httpRequestsAdaptiveGroups). Errors are
 * CloudflareError with a text fit for an answer: it never holds the token.
 */
export interface CloudflareZone {
  id: string;
  name: string;
}

/** Requests of one hour (its start, ms) by one user agent on one path. */
export interface ZoneRequestGroup {
  hour: number;
  userAgent: string;
  path: string;
  count: number;
}

export interface CloudflareClient {
  /** The zones the token can read, by name. */
  listZones(token: string): Promise<CloudflareZone[]>;
  /** The zone, when the token can read it and its analytics; else CloudflareError. */
  checkZone(token: string, zoneId: string): Promise<CloudflareZone>;
  /** Every group of [from, to) (ms, whole hours), paged by time windows. */
  zoneRequests(token: string, zoneId: string, from: number, to: number): Promise<ZoneRequestGroup[]>;
}

export class CloudflareError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CloudflareError';
  }
}
