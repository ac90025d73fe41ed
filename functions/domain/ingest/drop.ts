/**
 * Why a beacon stored nothing. Every step of the collector returns what it
 * made or a Drop, and every Drop is counted through one port (STYLE.md: no
 * silent drops).
 */

/**
 * Every reason the collector stores nothing. `client_error`: a `type: "error"`
 * beacon, a script reporting its own failure, counted, never a traffic row.
 * `dnt` and `invalid` are decided before the payload is read (the answer to
 * `invalid` is a 400).
 */
export const DROP_REASONS = [
  'dnt',
  'invalid',
  'invalid_hostname',
  'unknown_site',
  'unverified',
  'lookup_failed',
  'empty_event_name',
  'replay',
  'queue_full',
  'enqueue_failed',
  'client_error',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface Drop {
  readonly drop: DropReason;
}

/** One frozen object per reason: a dropped beacon allocates nothing to say why. */
const DROPS = Object.fromEntries(DROP_REASONS.map((reason) => [reason, Object.freeze({ drop: reason })])) as Record<DropReason, Drop>;

export const drop = (reason: DropReason): Drop => DROPS[reason];

export const isDrop = (value: unknown): value is Drop => typeof value === 'object' && value !== null && 'drop' in value;

/** The port every drop is counted through. */
export interface DropCounter {
  /**
   * One beacon stored nothing. `hostname` is the payload's, as sent, once it
   * was read; null for `dnt` and `invalid`, decided before that.
   */
  dropped(reason: DropReason, hostname: string | null): void;
}
