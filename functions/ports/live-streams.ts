/**
 * Port: what the live stream keeps in the registry (issue 39). Tickets are
 * stored by their hash until they are used or expire; each account has a
 * fixed number of stream slots, held by a lease its stream renews, so the
 * limit holds across every instance and a stream whose instance died frees
 * its slot when the lease runs out. Times are Unix seconds.
 */

/** Who a ticket lets in, and to which site's stream. */
export interface LiveTicket {
  uid: string;
  hostname: string;
}

export interface LiveStreams {
  /** Stores a ticket's hash, good until `expiresAt`. */
  putTicket(hash: string, ticket: LiveTicket, expiresAt: number): Promise<void>;
  /** The ticket, removed in the same step, when it is stored and unexpired; null otherwise (used, expired, never issued). */
  takeTicket(hash: string, now: number): Promise<LiveTicket | null>;
  /** How many of the account's slots are held at `now` (a ticket is refused when none is free). */
  heldSlots(uid: string, now: number): Promise<number>;
  /** Takes a free (or expired) one of the account's `slots` slots for `stream` until `until`: its number, or null when all are held. */
  claimSlot(uid: string, stream: string, slots: number, now: number, until: number): Promise<number | null>;
  /** Extends the hold on a slot; false when the slot is no longer this stream's. */
  renewSlot(uid: string, slot: number, stream: string, until: number): Promise<boolean>;
  /** Frees the slot if it is still this stream's. */
  releaseSlot(uid: string, slot: number, stream: string): Promise<void>;
}
