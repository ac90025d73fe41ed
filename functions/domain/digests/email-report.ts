/**
 * E-mail digests (issue 38): how a request creates or changes a site's e-mail
 * report, the account's report defaults and its workspace digest, and how
 * they are shown. A site report's frequency, time zone and recipients may
 * be left out: they then follow the account's defaults (the site's
 * `reports_mode` is `inherit`), now and when the defaults change.
 */
import type { DeliveryState, DigestRef, DigestTarget, EmailReportRecord, InheritedField, ReportDefaults, WorkspaceDigestRecord } from '#ports/email-reports.ts';
import { parseTimezone } from '../reports/time.ts';
import { parseRecipients, RECIPIENTS_ERROR } from '../mail/recipients.ts';
import { DIGEST_FREQUENCIES, nextSendAt, type DigestFrequency } from './schedule.ts';

export const MAX_EMAIL_REPORTS = 10;

export const DIGEST_ERRORS = [
  'invalid e-mail report settings',
  'frequency must be daily, weekly or monthly',
  'tz must be an IANA time zone name',
  RECIPIENTS_ERROR,
  'enabled must be true or false',
  'recipients are required: give them here or in the report defaults',
  'sites must be "all" or a list of hostnames of your sites',
] as const;

/** Until an account sets its own: weekly, in UTC, to nobody (a report then names its recipients). */
export const DEFAULT_REPORT_DEFAULTS: ReportDefaults = { frequency: 'weekly', tz: 'UTC', recipients: [] };

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The settings a request gives; `null` for a site report's field: follow the defaults. */
interface SettingFields {
  frequency?: DigestFrequency | null;
  tz?: string | null;
  recipients?: string[] | null;
  enabled?: boolean;
}

/** Each setting present in `body`, checked; `nullable`: a null value is kept (a site report's "follow the defaults"). */
function settingsOf(body: unknown, nullable: boolean): Parsed<SettingFields> {
  if (!isObject(body)) return { ok: false, error: DIGEST_ERRORS[0] };
  const out: SettingFields = {};
  const given = (key: string) => key in body && !(nullable && body[key] === null);
  if (nullable) for (const key of ['frequency', 'tz', 'recipients'] as const) if (key in body && body[key] === null) out[key] = null;
  if (given('frequency')) {
    if (!DIGEST_FREQUENCIES.includes(body.frequency as DigestFrequency)) return { ok: false, error: DIGEST_ERRORS[1] };
    out.frequency = body.frequency as DigestFrequency;
  }
  if (given('tz')) {
    const tz = typeof body.tz === 'string' ? parseTimezone(body.tz) : null;
    if (!tz) return { ok: false, error: DIGEST_ERRORS[2] };
    out.tz = tz;
  }
  if (given('recipients')) {
    const recipients = parseRecipients(body.recipients);
    if (!recipients) return { ok: false, error: DIGEST_ERRORS[3] };
    out.recipients = recipients;
  }
  if ('enabled' in body) {
    if (typeof body.enabled !== 'boolean') return { ok: false, error: DIGEST_ERRORS[4] };
    out.enabled = body.enabled;
  }
  return { ok: true, value: out };
}

/** The next send time of a digest as it now is: none while disabled. */
export const scheduled = (digest: { enabled: boolean; frequency: DigestFrequency; tz: string }, nowMs: number): string | null =>
  digest.enabled ? new Date(nextSendAt(digest.frequency, digest.tz, nowMs)).toISOString() : null;

/** A site report's settings: its own values, the defaults' for the fields it inherits. */
export type ReportSettings = Pick<EmailReportRecord, 'frequency' | 'tz' | 'recipients' | 'inherits' | 'enabled'>;

/**
 * A site report's settings after a request (`current`: none for a create), with the defaults filled
 * in for the fields left out or set to null. With no recipients of its own nor in the defaults, an
 * ID token's e-mail (`fallbackRecipient`) becomes its own.
 */
export function parseReportSettings(body: unknown, current: ReportSettings | null, defaults: ReportDefaults, fallbackRecipient: string | null): Parsed<ReportSettings> {
  const parsed = settingsOf(body, true);
  if (!parsed.ok) return parsed;
  const f = parsed.value;
  const inherits = new Set<InheritedField>(current?.inherits ?? ['frequency', 'tz', 'recipients']);
  const own: Partial<Pick<EmailReportRecord, InheritedField>> = {};
  for (const key of ['frequency', 'tz', 'recipients'] as const) {
    if (f[key] === null) inherits.add(key);
    else if (f[key] !== undefined) inherits.delete(key);
    if (!inherits.has(key)) (own as Record<string, unknown>)[key] = f[key] ?? current?.[key];
  }
  let recipients = own.recipients ?? defaults.recipients;
  if (recipients.length === 0 && fallbackRecipient) {
    inherits.delete('recipients');
    recipients = [fallbackRecipient];
  }
  if (recipients.length === 0) return { ok: false, error: DIGEST_ERRORS[5] };
  return {
    ok: true,
    value: {
      frequency: own.frequency ?? defaults.frequency,
      tz: own.tz ?? defaults.tz,
      recipients,
      inherits: (['frequency', 'tz', 'recipients'] as const).filter((k) => inherits.has(k)),
      enabled: f.enabled ?? current?.enabled ?? true,
    },
  };
}

/** A report's settings once the defaults changed: the fields it inherits take the new values. */
export function reinherit(report: ReportSettings, defaults: ReportDefaults): ReportSettings {
  const next = { ...report };
  for (const key of report.inherits) (next as Record<string, unknown>)[key] = defaults[key];
  return next;
}

/** New report defaults: any of frequency, tz and recipients, the others kept. */
export function parseDefaults(body: unknown, current: ReportDefaults): Parsed<ReportDefaults> {
  const parsed = settingsOf(body, false);
  if (!parsed.ok) return parsed;
  const { frequency, tz, recipients } = parsed.value;
  return { ok: true, value: { frequency: frequency ?? current.frequency, tz: tz ?? current.tz, recipients: recipients ?? current.recipients } };
}

/** The workspace digest's settings. */
export type WorkspaceSettings = Pick<WorkspaceDigestRecord, 'enabled' | 'frequency' | 'tz' | 'recipients' | 'sites'>;

export const DEFAULT_WORKSPACE: WorkspaceSettings = { enabled: false, ...DEFAULT_REPORT_DEFAULTS, sites: 'all' };

/**
 * New workspace digest settings: any of its fields, the others kept. `sites` is "all" or a list
 * of hostnames (normalized by `hostname`, null for one that is not a hostname); whether they are
 * the account's is the caller's check. Enabled, it needs recipients.
 */
export function parseWorkspace(body: unknown, current: WorkspaceSettings, hostname: (raw: string) => string | null): Parsed<WorkspaceSettings> {
  const parsed = settingsOf(body, false);
  if (!parsed.ok) return parsed;
  const f = parsed.value;
  let sites = current.sites;
  if (isObject(body) && 'sites' in body) {
    const raw = body.sites;
    if (raw === 'all') sites = 'all';
    else {
      const names = Array.isArray(raw) && raw.length <= 1000 && raw.every((h) => typeof h === 'string') ? raw.map((h: string) => hostname(h)) : null;
      if (!names || names.some((h) => h === null)) return { ok: false, error: DIGEST_ERRORS[6] };
      sites = [...new Set(names as string[])];
    }
  }
  const next: WorkspaceSettings = {
    enabled: f.enabled ?? current.enabled,
    frequency: f.frequency ?? current.frequency,
    tz: f.tz ?? current.tz,
    recipients: f.recipients ?? current.recipients,
    sites,
  };
  if (next.enabled && next.recipients.length === 0) return { ok: false, error: DIGEST_ERRORS[5] };
  return { ok: true, value: next };
}

const delivery = ({ enabled, last_sent_at, next_send_at, last_error }: DeliveryState) => ({ enabled, last_sent_at, next_send_at, last_error });

/** A site report as the API answers it. */
export const reportView = (r: EmailReportRecord) => ({
  id: r.id,
  frequency: r.frequency,
  recipients: r.recipients,
  tz: r.tz,
  inherits: r.inherits,
  ...delivery(r),
  created_at: r.created_at,
});

/** The workspace digest as the API answers it. */
export const workspaceView = (w: WorkspaceDigestRecord) => ({ frequency: w.frequency, tz: w.tz, recipients: w.recipients, sites: w.sites, ...delivery(w) });

/** Which digest a target is, for delivery writes and unsubscribe links. */
export const digestRef = (target: DigestTarget): DigestRef =>
  target.kind === 'site' ? { kind: 'site', site: target.report.site, id: target.report.id } : { kind: 'workspace', owner_uid: target.digest.owner_uid };

/** A digest's settings and delivery state, whichever kind it is. */
export const digestSettings = (target: DigestTarget): EmailReportRecord | WorkspaceDigestRecord => (target.kind === 'site' ? target.report : target.digest);
