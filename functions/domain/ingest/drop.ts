/**
 * Why an incoming row stored nothing. Every ingest step returns what it made
 * or a Drop, and the runner counts every Drop through one port
 * (pipeline.ts, #ports/ingest-metrics.ts; STYLE.md: no silent drops).
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
  /** An `invalid` input's refusal as its sender is told it (the text of a 400). */
  readonly error?: string;
  /** An `invalid` input over its size bound (a 413). */
  readonly oversize?: true;
}

/** One frozen object per reason: a dropped beacon allocates nothing to say why. */
const DROPS = Object.fromEntries(DROP_REASONS.map((reason) => [reason, Object.freeze({ drop: reason })])) as Record<DropReason, Drop>;

export const drop = (reason: DropReason): Drop => DROPS[reason];

export const isDrop = (value: unknown): value is Drop => typeof value === 'object' && value !== null && 'drop' in value;

/** An input refused as malformed, saying why. */
export const invalidInput = (error: string): Drop => ({ drop: 'invalid', error });

/** An input refused for its size. */
export const OVERSIZE: Drop = Object.freeze({ drop: 'invalid', oversize: true });
