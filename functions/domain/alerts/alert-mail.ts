/** The mails of alert rules: when one fires, when it resolves, and the test send. Values are data: escaped by composeMail. */
import type { AlertRuleRecord } from '#ports/alert-rules.ts';
import type { Mail } from '#ports/mailer.ts';
import { composeMail } from '../mail/compose.ts';

const UNITS: Record<AlertRuleRecord['metric'], (v: number) => string> = {
  error_rate: (v) => `${Math.round(v * 10_000) / 100} %`,
  p95_ms: (v) => `${v} ms`,
  requests: String,
  pageviews: String,
  visitors: String,
};

export const formatMetric = (rule: Pick<AlertRuleRecord, 'metric'>, value: number | null): string => (value === null ? 'no data' : UNITS[rule.metric](value));

export type AlertMailKind = 'firing' | 'resolved' | 'test';

const SUBJECTS: Record<AlertMailKind, string> = { firing: 'Alert firing', resolved: 'Alert resolved', test: 'Test alert' };

/** `dashboardUrl`: where the site's alerts are shown, when the service knows its public address. */
export function alertMail(kind: AlertMailKind, rule: AlertRuleRecord, value: number | null, at: Date, dashboardUrl: string | null): Mail {
  const condition = `${rule.metric} ${rule.comparator} ${formatMetric(rule, rule.threshold)} over ${rule.window_minutes} minutes${rule.route ? ` on ${rule.route}` : ''}`;
  const intro: Record<AlertMailKind, string> = {
    firing: `The alert rule "${rule.name}" of ${rule.site} is firing: ${condition}.`,
    resolved: `The alert rule "${rule.name}" of ${rule.site} has resolved: the condition (${condition}) no longer holds.`,
    test: `This is a test of the alert rule "${rule.name}" of ${rule.site}. Nothing is firing because of it.`,
  };
  return composeMail({
    to: rule.recipients,
    subject: `[tinytrack] ${SUBJECTS[kind]}: ${rule.name} (${rule.site})`,
    title: `${SUBJECTS[kind]}: ${rule.name}`,
    paragraphs: [intro[kind]],
    lines: [
      ['Site', rule.site],
      ['Condition', condition],
      ['Measured', formatMetric(rule, value)],
      ['Checked at', at.toISOString()],
    ],
    link: dashboardUrl ? { text: 'Open the alerts', url: dashboardUrl } : null,
  });
}

/** Where an alert mail links: the site's API view in the dashboard at `origin`; none when the public address is unknown. */
export const alertsUrlOf = (origin: string | undefined): ((hostname: string) => string) | null =>
  origin ? (hostname) => `${origin}/sites/${encodeURIComponent(hostname)}/api` : null;
