/**
 * The every-minute check of alert rules (issue 36; EventBridge on AWS, the
 * local scheduler on one machine, both calling `check(minute)`): each enabled
 * rule's metric over the window before the minute, from the API-requests
 * series or the web reports; a state change is a conditional write on the
 * rule, and only the run that makes it sends the mail, so a minute checked
 * twice, or by two runs at once, mails once. One failing rule never stops the others.
 */
import { alertMail } from '#domain/alerts/alert-mail.ts';
import { API_METRICS, nextState, windowOf } from '#domain/alerts/rule.ts';
import { registrationOf } from '#domain/registration.ts';
import type { AlertRuleRecord, AlertRules } from '#ports/alert-rules.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import type { Logger } from '#ports/logger.ts';
import type { Mailer } from '#ports/mailer.ts';
import type { Registry } from '#ports/registry.ts';
import type { ReportStore } from '#ports/report-store.ts';
import { errorRate } from '#domain/api-reports/query.ts';

export interface AlertCheckServices {
  registry: AlertRules & Pick<Registry, 'getSite'>;
  apiRequests: ApiRequestStore;
  reports: Pick<ReportStore, 'traffic'>;
  mailer: Mailer;
  log: Logger & { info(message: string, fields?: Record<string, unknown>): void };
  /** Where an owner sees a site's alerts (`{hostname}` replaced), or null. */
  alertsUrl: ((hostname: string) => string) | null;
}

export interface AlertCheckOutcome {
  checked: number;
  fired: number;
  resolved: number;
  failed: number;
}

/** The rule's metric over its window before `minute`: null when there is nothing to measure (no requests for a ratio or a latency). */
async function measure(services: AlertCheckServices, rule: AlertRuleRecord, minute: Date): Promise<number | null | undefined> {
  const site = await services.registry.getSite(rule.site);
  if (!site) return undefined;
  const ref = { site: site.hostname, registration: registrationOf(site) };
  const { from, to } = windowOf(rule, minute);
  if (API_METRICS.has(rule.metric)) {
    const filters = rule.route ? [{ dim: 'route' as const, op: 'eq' as const, value: rule.route }] : [];
    const t = await services.apiRequests.apiTotals({ ...ref, from, to, filters });
    if (rule.metric === 'requests') return t.requests;
    return rule.metric === 'error_rate' ? errorRate(t.server_errors, t.requests) : t.p95_ms;
  }
  const rows = await services.reports.traffic({ sites: [ref], boundaries: [from, to], filters: [] });
  const whole = rows.find((r) => r.bucket === null);
  return rule.metric === 'pageviews' ? (whole?.pageviews ?? 0) : (whole?.visitors ?? 0);
}

async function checkRule(services: AlertCheckServices, rule: AlertRuleRecord, minute: Date): Promise<'fired' | 'resolved' | null> {
  const at = minute.toISOString();
  const value = await measure(services, rule, minute);
  if (value === undefined) return null;
  const next = nextState(rule, value);
  if (next === null || next === rule.state) {
    await services.registry.recordAlertEvaluated(rule.site, rule.id, at);
    return null;
  }
  // Only the run whose write wins mails: a second run of this minute, or one running beside this, finds the state moved.
  if (!(await services.registry.changeAlertState(rule.site, rule.id, rule.state, next, at, value))) return null;
  const kind = next === 'firing' ? 'firing' : 'resolved';
  await services.mailer.send(alertMail(kind, rule, value, minute, services.alertsUrl?.(rule.site) ?? null));
  return next === 'firing' ? 'fired' : 'resolved';
}

export function createAlertChecker(services: AlertCheckServices): (minute: Date) => Promise<AlertCheckOutcome> {
  return async (minute) => {
    const rules = await services.registry.listEnabledAlertRules();
    const outcome: AlertCheckOutcome = { checked: rules.length, fired: 0, resolved: 0, failed: 0 };
    await Promise.all(
      rules.map(async (rule) => {
        try {
          const changed = await checkRule(services, rule, minute);
          if (changed) outcome[changed]++;
        } catch (e) {
          outcome.failed++;
          services.log.error('alert check failed', { site: rule.site, rule: rule.id, message: (e as Error).message });
        }
      }),
    );
    if (outcome.checked > 0) services.log.info('alert checks', { minute: minute.toISOString(), ...outcome });
    return outcome;
  };
}
