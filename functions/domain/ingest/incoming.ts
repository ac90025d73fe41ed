/**
 * One incoming row, decoded: what every kind of input (beacon.ts for the
 * beacon routes) hands the shared steps (collect.ts).
 */
import type { CollectorPayload } from './payload.ts';

export interface Incoming {
  payload: CollectorPayload;
  /** `/append` records an append whatever `type` says. */
  append: boolean;
  ip: string;
  /** The request's User-Agent header, used when the payload has no `ua`. */
  headerUa: string;
  /** ApiRequest.servedOrigin: an origin that serves latest.js, for automatic verification. */
  servedOrigin?: string | undefined;
}

/** The hostname a shared step's input named, as sent: what its drops are counted with. */
export const sentHostname = (value: { incoming: Incoming }): string => value.incoming.payload.hostname;
