/**
 * Port: e-mail digests (issue 38). A site's e-mail reports are records under
 * the site (SiteRecords: a site delete sweeps them); an account has its
 * report defaults and its workspace digest. Every enabled digest is listed by
 * its next send time, and a send moves it by conditional writes: a run claims
 * a due digest for a while, and only the run holding the claim moves
 * `next_send_at` on, so two runs never send the same period twice.
 */
import type { DigestFrequency } from '#domain/digests/schedule.ts';
import type { SiteRecords } from './goals.ts';

/** The fields of a site report that may follow the account's defaults instead of their own value. */
export type InheritedField = 'frequency' | 'tz' | 'recipients';

/** When a digest went out, when it goes next, and why the last try failed. */
export interface DeliveryState {
  enabled: boolean;
  last_sent_at: string | null;
  /** The send time due next (ISO); null while disabled. */
  next_send_at: string | null;
  last_error: string | null;
}

export interface EmailReportRecord extends DeliveryState {
  id: string;
  site: string;
  owner_uid: string;
  frequency: DigestFrequency;
  tz: string;
  recipients: string[];
  /** The fields the request left out: they follow the account's defaults (reports_mode `inherit`). */
  inherits: InheritedField[];
  created_at: string;
}

export interface ReportDefaults {
  frequency: DigestFrequency;
  tz: string;
  recipients: string[];
}

export interface WorkspaceDigestRecord extends DeliveryState, ReportDefaults {
  owner_uid: string;
  /** `all` of the account's sites, or some of them by hostname. */
  sites: 'all' | string[];
}

/** A digest: a site's e-mail report or an account's workspace digest (what the scheduled run sends). */
export type DigestTarget = { kind: 'site'; report: EmailReportRecord } | { kind: 'workspace'; digest: WorkspaceDigestRecord };

/** Which digest a delivery write is for. */
export type DigestRef = { kind: 'site'; site: string; id: string } | { kind: 'workspace'; owner_uid: string };

export interface EmailReports {
  emailReports: SiteRecords<EmailReportRecord>;
  /** The account's defaults; null until set. */
  getReportDefaults(ownerUid: string): Promise<ReportDefaults | null>;
  putReportDefaults(ownerUid: string, defaults: ReportDefaults): Promise<void>;
  /** The account's workspace digest; null until set. */
  getWorkspaceDigest(ownerUid: string): Promise<WorkspaceDigestRecord | null>;
  putWorkspaceDigest(digest: WorkspaceDigestRecord): Promise<void>;
  /** Takes a deleted site out of the account's workspace digest (one that lists sites by name). */
  dropWorkspaceSite(ownerUid: string, hostname: string): Promise<void>;
  /** Every enabled digest whose next send time is at or before `now` (ISO). */
  dueDigests(now: string): Promise<DigestTarget[]>;
  /**
   * Claims a due digest until `until` (ISO): only if its next send time is still `dueAt` and no
   * other claim holds at `now`. True for the one caller whose write won.
   */
  claimDigest(ref: DigestRef, dueAt: string, now: string, until: string): Promise<boolean>;
  /**
   * Ends a claim. Sent: `next_send_at` moves from `dueAt` to `next` and `last_sent_at` is set. Failed
   * (`error`): `next_send_at` stays, so the next run tries again, and `last_error` says why.
   */
  finishDigest(ref: DigestRef, dueAt: string, outcome: { sentAt: string; next: string } | { error: string }): Promise<void>;
  /** The secret unsubscribe links are signed with, made on first use. */
  unsubscribeSecret(): Promise<Buffer>;
}
