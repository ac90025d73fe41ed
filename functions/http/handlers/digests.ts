/**
 * Route group `digests` (issue 38): a site's e-mail reports, the account's
 * report defaults and workspace digest with its preview, the test sends, and
 * the unsubscribe links. Site reports are owner only, also for public sites:
 * reads need `read`, changes `manage` (a management key's count against its
 * rate limit); defaults, the workspace digest and its preview work with a
 * key; test sends need the ID token. An unsubscribe link needs no sign-in:
 * its signature is its credential, and it removes its one recipient.
 */
import { randomUUID } from 'node:crypto';
import { isUuid } from '#domain/uuid.ts';
import {
  DEFAULT_REPORT_DEFAULTS,
  DEFAULT_WORKSPACE,
  DIGEST_ERRORS,
  digestSettings,
  MAX_EMAIL_REPORTS,
  parseDefaults,
  parseReportSettings,
  parseWorkspace,
  reinherit,
  reportView,
  scheduled,
  workspaceView,
  type ReportSettings,
} from '#domain/digests/email-report.ts';
import { readUnsubscribeToken, recipientOf } from '#domain/digests/unsubscribe.ts';
import { normalizeHostname } from '#domain/hostname.ts';
import { EmailReportLimitError, InvalidInputError, UnknownEmailReportError } from '#domain/errors.ts';
import { escapeHtml } from '#domain/mail/html.ts';
import type { DigestRef, DigestTarget, EmailReportRecord, ReportDefaults, WorkspaceDigestRecord } from '#ports/email-reports.ts';
import type { Mailer } from '#ports/mailer.ts';
import { digestMails, type DigestServices } from '#reports/digest-reports.ts';
import { createGroupHandler, json, jsonBody, text, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireIdToken, requireOwnedSite, requireOwnedSiteByIdToken, requireOwnedSiteRead, requirePrincipal, type AuthServices } from '../auth.ts';

/** Callers, the registry, the stores digests read, the mailer of test sends, and the public origins (the first is where links point). */
export type DigestsServices = AuthServices & Omit<DigestServices, 'registry' | 'origin'> & { mailer: Mailer; publicOrigins: readonly string[] };
type ApiRequest = AnyApiRequest<DigestsServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';
const nowOf = (req: ApiRequest) => req.services.clock.now().getTime();
const digests = (req: ApiRequest) => req.services.registry.digests;
const composing = (req: ApiRequest): DigestServices => ({ ...req.services, origin: () => req.services.publicOrigins[0] ?? null });

const defaultsOf = async (req: ApiRequest, uid: string): Promise<ReportDefaults> => (await digests(req).getReportDefaults(uid)) ?? DEFAULT_REPORT_DEFAULTS;

async function workspaceOf(req: ApiRequest, uid: string): Promise<WorkspaceDigestRecord> {
  return (await digests(req).getWorkspaceDigest(uid)) ?? { owner_uid: uid, ...DEFAULT_WORKSPACE, last_sent_at: null, next_send_at: null, last_error: null };
}

/** The next send time after a change: kept unless what decides it changed (so a due send is not pushed back). */
function rescheduled(before: ReportSettings | WorkspaceDigestRecord | null, after: { enabled: boolean; frequency: EmailReportRecord['frequency']; tz: string }, current: string | null, nowMs: number) {
  const same = before && before.enabled === after.enabled && before.frequency === after.frequency && before.tz === after.tz;
  return same && current ? current : scheduled(after, nowMs);
}

async function reportOf(req: ApiRequest, site: string): Promise<EmailReportRecord> {
  const id = isUuid(req.params.id) ? (req.params.id as string) : null;
  const report = id ? await digests(req).emailReports.get(site, id) : null;
  if (!report) throw new UnknownEmailReportError();
  return report;
}

async function listReports(req: ApiRequest) {
  const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
  const reports = await digests(req).emailReports.list(site.hostname);
  reports.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return json(200, { reports: reports.map(reportView) });
}

async function createReport(req: ApiRequest) {
  const { principal, site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const email = principal.kind === 'user' ? (principal.email ?? null) : null;
  const parsed = parseReportSettings(jsonBody(req), null, await defaultsOf(req, site.owner_uid), email);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const now = nowOf(req);
  const report: EmailReportRecord = {
    id: randomUUID(),
    site: site.hostname,
    owner_uid: site.owner_uid,
    ...parsed.value,
    last_sent_at: null,
    next_send_at: scheduled(parsed.value, now),
    last_error: null,
    created_at: new Date(now).toISOString(),
  };
  if (!(await digests(req).emailReports.create(report, MAX_EMAIL_REPORTS))) throw new EmailReportLimitError();
  return json(201, reportView(report));
}

async function updateReport(req: ApiRequest) {
  const { principal, site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const current = await reportOf(req, site.hostname);
  const email = principal.kind === 'user' ? (principal.email ?? null) : null;
  const parsed = parseReportSettings(jsonBody(req), current, await defaultsOf(req, site.owner_uid), email);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const next_send_at = rescheduled(current, parsed.value, current.next_send_at, nowOf(req));
  const updated = await digests(req).emailReports.update(site.hostname, current.id, { ...parsed.value, next_send_at });
  if (!updated) throw new UnknownEmailReportError();
  return json(200, reportView(updated));
}

async function deleteReport(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const id = isUuid(req.params.id) ? (req.params.id as string) : null;
  if (!id || !(await digests(req).emailReports.delete(site.hostname, id))) throw new UnknownEmailReportError();
  return json(200, { deleted: id });
}

/** Sends a digest's mails now, for its last complete period. */
async function sendNow(req: ApiRequest, target: DigestTarget) {
  const settings = digestSettings(target);
  if (settings.recipients.length === 0) throw new InvalidInputError(DIGEST_ERRORS[5]);
  for (const mail of await digestMails(composing(req), target, nowOf(req))) await req.services.mailer.send(mail);
  return json(200, { sent: true, recipients: settings.recipients });
}

async function testReport(req: ApiRequest) {
  const { site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  return sendNow(req, { kind: 'site', report: await reportOf(req, site.hostname) });
}

async function getDefaults(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'read');
  return json(200, await defaultsOf(req, principal.uid));
}

/** New defaults, and every report of the account that inherits a field takes its new value. */
async function putDefaults(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'manage');
  const parsed = parseDefaults(jsonBody(req), await defaultsOf(req, principal.uid));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  await digests(req).putReportDefaults(principal.uid, parsed.value);
  const now = nowOf(req);
  for (const site of await req.services.registry.listSites(principal.uid)) {
    for (const report of await digests(req).emailReports.list(site.hostname)) {
      if (report.inherits.length === 0) continue;
      const settings = reinherit(report, parsed.value);
      await digests(req).emailReports.update(site.hostname, report.id, { ...settings, next_send_at: rescheduled(report, settings, report.next_send_at, now) });
    }
  }
  return json(200, parsed.value);
}

async function getWorkspace(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'read');
  return json(200, workspaceView(await workspaceOf(req, principal.uid)));
}

async function putWorkspace(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'manage');
  const current = await workspaceOf(req, principal.uid);
  const hostname = (raw: string) => {
    const n = normalizeHostname(raw);
    return n.ok ? n.hostname : null;
  };
  const parsed = parseWorkspace(jsonBody(req), current, hostname);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const { sites } = parsed.value;
  if (sites !== 'all') {
    const owned = new Set((await req.services.registry.listSites(principal.uid)).map((s) => s.hostname));
    if (!sites.every((h) => owned.has(h))) throw new InvalidInputError(DIGEST_ERRORS[6]);
  }
  const digest: WorkspaceDigestRecord = { ...current, ...parsed.value, next_send_at: rescheduled(current, parsed.value, current.next_send_at, nowOf(req)) };
  await digests(req).putWorkspaceDigest(digest);
  return json(200, workspaceView(digest));
}

/** The workspace digest as its recipients would get it for its last complete period (the first recipient's copy). */
async function previewWorkspace(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'read');
  const digest = await workspaceOf(req, principal.uid);
  const to = digest.recipients[0] ?? (principal.kind === 'user' ? principal.email : undefined) ?? 'you@example.com';
  const [mail] = await digestMails(composing(req), { kind: 'workspace', digest }, nowOf(req), [to]);
  return json(200, { subject: mail?.subject, html: mail?.html, text: mail?.text });
}

async function testWorkspace(req: ApiRequest) {
  const principal = await requireIdToken(req);
  return sendNow(req, { kind: 'workspace', digest: await workspaceOf(req, principal.uid) });
}

/** A small page of its own (no script, no outside resource), for a link opened in a mail client's browser. */
function page(status: number, title: string, body: string) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>
<body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem"><h1 style="font-size:1.25rem">${escapeHtml(title)}</h1>${body}</body></html>`;
  return text(status, html, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    'Referrer-Policy': 'no-referrer',
  });
}

const INVALID_LINK = () => page(400, 'This unsubscribe link is not valid', '<p>It may have been cut short by your mail program. Open the link from the e-mail again.</p>');

/** The digest a valid link names and the recipient it names, when both are still there. */
async function linkTarget(req: ApiRequest): Promise<{ ref: DigestRef; recipient: string | null; target: DigestTarget | null } | null> {
  const read = readUnsubscribeToken(await digests(req).unsubscribeSecret(), req.query.token ?? '');
  if (!read) return null;
  const { ref } = read;
  const target: DigestTarget | null =
    ref.kind === 'site'
      ? await digests(req).emailReports.get(ref.site, ref.id).then((report) => (report ? { kind: 'site', report } : null))
      : await digests(req).getWorkspaceDigest(ref.owner_uid).then((digest) => (digest ? { kind: 'workspace', digest } : null));
  const recipients = target ? (target.kind === 'site' ? target.report.recipients : target.digest.recipients) : [];
  return { ref, recipient: recipientOf(recipients, read.recipient), target };
}

const GONE = () => page(200, 'You are unsubscribed', '<p>This address gets no more of these e-mails.</p>');

async function unsubscribePage(req: ApiRequest) {
  const link = await linkTarget(req);
  if (!link) return INVALID_LINK();
  if (!link.recipient) return GONE();
  const action = `?token=${encodeURIComponent(req.query.token ?? '')}`;
  return page(
    200,
    'Unsubscribe from this e-mail?',
    `<p>${escapeHtml(link.recipient)} will get no more of these e-mails. Other recipients keep theirs.</p><form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`,
  );
}

/** Removes the link's recipient (a digest left with none is disabled); a link used again finds it gone. */
async function unsubscribe(req: ApiRequest) {
  const link = await linkTarget(req);
  if (!link) return INVALID_LINK();
  const { recipient, target } = link;
  if (!recipient || !target) return GONE();
  if (target.kind === 'site') {
    const { report } = target;
    const recipients = report.recipients.filter((r) => r !== recipient);
    const enabled = report.enabled && recipients.length > 0;
    await digests(req).emailReports.update(report.site, report.id, {
      recipients,
      inherits: report.inherits.filter((f) => f !== 'recipients'),
      enabled,
      next_send_at: enabled ? report.next_send_at : null,
    });
  } else {
    const { digest } = target;
    const recipients = digest.recipients.filter((r) => r !== recipient);
    const enabled = digest.enabled && recipients.length > 0;
    await digests(req).putWorkspaceDigest({ ...digest, recipients, enabled, next_send_at: enabled ? digest.next_send_at : null });
  }
  return GONE();
}

export const handler = createGroupHandler<DigestsServices>({
  'GET /api/sites/{hostname}/reports': listReports,
  'POST /api/sites/{hostname}/reports': createReport,
  'PATCH /api/sites/{hostname}/reports/{id}': updateReport,
  'DELETE /api/sites/{hostname}/reports/{id}': deleteReport,
  'POST /api/sites/{hostname}/reports/{id}/test': testReport,
  'GET /api/reports/defaults': getDefaults,
  'PUT /api/reports/defaults': putDefaults,
  'GET /api/reports/workspace': getWorkspace,
  'PUT /api/reports/workspace': putWorkspace,
  'GET /api/reports/workspace/preview': previewWorkspace,
  'POST /api/reports/workspace/test': testWorkspace,
  'GET /api/reports/unsubscribe': unsubscribePage,
  'POST /api/reports/unsubscribe': unsubscribe,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/digests.ts). */
export const createDigestsHandler = (services: DigestsServices) => handler.lambda(services);
