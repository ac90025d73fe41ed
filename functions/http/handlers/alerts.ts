/**
 * Route group `alerts` (issue 36): a site's alert rules. Owner only, also for
 * public sites; reads need `read`, changes `manage` (a management key's count
 * against its rate limit); the test send needs the ID token. Created with a
 * key, a rule names its recipients; with an ID token they default to the
 * token's e-mail.
 */
import { randomUUID } from 'node:crypto';
import { isUuid } from '#domain/uuid.ts';
import { alertMail } from '#domain/alerts/alert-mail.ts';
import { alertView, MAX_ALERT_RULES, parseAlertCreate, parseAlertPatch } from '#domain/alerts/rule.ts';
import { AlertLimitError, InvalidInputError, UnknownAlertError } from '#domain/errors.ts';
import type { AlertRuleRecord } from '#ports/alert-rules.ts';
import type { Mailer } from '#ports/mailer.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireOwnedSite, requireOwnedSiteByIdToken, type AuthServices } from '../auth.ts';

/** Callers, the registry, and the mailer of the test send. */
export type AlertsServices = AuthServices & { mailer: Mailer; alertsUrl: ((hostname: string) => string) | null };
type ApiRequest = AnyApiRequest<AlertsServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';

/** Rule ids are UUIDs: anything else names no rule (and never reaches the store, whose keys are bounded). */
const ruleId = (req: ApiRequest) => (isUuid(req.params.id) ? req.params.id : null);

async function ruleOf(req: ApiRequest, site: string): Promise<AlertRuleRecord> {
  const id = ruleId(req);
  const rule = id ? await req.services.registry.getAlertRule(site, id) : null;
  if (!rule) throw new UnknownAlertError();
  return rule;
}

async function listRules(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'read');
  const rules = await req.services.registry.listAlertRules(site.hostname);
  rules.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return json(200, { alerts: rules.map(alertView) });
}

async function createRule(req: ApiRequest) {
  const { principal, site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const email = principal.kind === 'user' ? (principal.email ?? null) : null;
  const parsed = parseAlertCreate(jsonBody(req), email, principal.kind === 'key');
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const rule: AlertRuleRecord = {
    id: randomUUID(),
    site: site.hostname,
    owner_uid: principal.uid,
    ...parsed.value,
    state: 'ok',
    last_evaluated_at: null,
    last_changed_at: null,
    created_at: req.services.clock.now().toISOString(),
    history: [],
  };
  if (!(await req.services.registry.createAlertRule(rule, MAX_ALERT_RULES))) throw new AlertLimitError();
  return json(201, alertView(rule));
}

async function updateRule(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const current = await ruleOf(req, site.hostname);
  const parsed = parseAlertPatch(jsonBody(req), current);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const updated = await req.services.registry.updateAlertRule(site.hostname, current.id, parsed.value);
  if (!updated) throw new UnknownAlertError();
  return json(200, alertView(updated));
}

async function deleteRule(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const id = ruleId(req);
  if (!id || !(await req.services.registry.deleteAlertRule(site.hostname, id))) throw new UnknownAlertError();
  return json(200, { deleted: id });
}

/** A test mail to the rule's recipients, now, whatever its state (ID token only, spec part 5 rule 6). */
async function testRule(req: ApiRequest) {
  const { site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  const rule = await ruleOf(req, site.hostname);
  await req.services.mailer.send(alertMail('test', rule, null, req.services.clock.now(), req.services.alertsUrl?.(site.hostname) ?? null));
  return json(200, { sent: true, recipients: rule.recipients });
}

export const handler = createGroupHandler<AlertsServices>({
  'GET /api/sites/{hostname}/alerts': listRules,
  'POST /api/sites/{hostname}/alerts': createRule,
  'PATCH /api/sites/{hostname}/alerts/{id}': updateRule,
  'DELETE /api/sites/{hostname}/alerts/{id}': deleteRule,
  'POST /api/sites/{hostname}/alerts/{id}/test': testRule,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/alerts.ts). */
export const createAlertsHandler = (services: AlertsServices) => handler.lambda(services);
