/**
 * Alert rules (issue 36): what a rule is, how a request creates or changes
 * one, and how a measured value moves its state. A rule compares a metric
 * over the `window_minutes` before the checked minute with its threshold;
 * `error_rate` is a fraction 0..1 (server errors ÷ requests), `p95_ms` in
 * milliseconds, the others counts. A rule fires when the comparison holds and
 * resolves when it no longer does; a window with no data for a ratio or a
 * latency (no requests) leaves the state as it is.
 */
import type { AlertComparator, AlertMetric, AlertRuleRecord, AlertState } from '#ports/alert-rules.ts';
import { parseRecipients, RECIPIENTS_ERROR } from '../mail/recipients.ts';

export const ALERT_METRICS: readonly AlertMetric[] = ['error_rate', 'p95_ms', 'requests', 'pageviews', 'visitors'];
export const API_METRICS: ReadonlySet<AlertMetric> = new Set(['error_rate', 'p95_ms', 'requests']);
export const MAX_ALERT_RULES = 20;
export const MIN_WINDOW = 5;
export const MAX_WINDOW = 1440;
export const MAX_ALERT_NAME = 100;
export const MAX_ALERT_ROUTE = 256;

export const ALERT_ERRORS = [
  'invalid alert rule',
  `name must be 1 to ${MAX_ALERT_NAME} characters`,
  'metric must be error_rate, p95_ms, requests, pageviews or visitors',
  'comparator must be > or <',
  'threshold must be a number of at least 0',
  'error_rate threshold must be from 0 to 1',
  `window_minutes must be an integer from ${MIN_WINDOW} to ${MAX_WINDOW}`,
  `route must be 1 to ${MAX_ALERT_ROUTE} characters, for error_rate, p95_ms or requests only`,
  RECIPIENTS_ERROR,
  'recipients are required with a management key',
  'enabled must be true or false',
] as const;

/** The fields a request may set. */
export type AlertFields = Pick<AlertRuleRecord, 'name' | 'metric' | 'comparator' | 'threshold' | 'window_minutes' | 'route' | 'recipients' | 'enabled'>;

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each field present in `body`, checked; absent ones are left out. */
function fieldsOf(body: Record<string, unknown>): Parsed<Partial<AlertFields>> {
  const out: Partial<AlertFields> = {};
  if ('name' in body) {
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (name.length === 0 || name.length > MAX_ALERT_NAME) return { ok: false, error: ALERT_ERRORS[1] };
    out.name = name;
  }
  if ('metric' in body) {
    if (!ALERT_METRICS.includes(body.metric as AlertMetric)) return { ok: false, error: ALERT_ERRORS[2] };
    out.metric = body.metric as AlertMetric;
  }
  if ('comparator' in body) {
    if (body.comparator !== '>' && body.comparator !== '<') return { ok: false, error: ALERT_ERRORS[3] };
    out.comparator = body.comparator as AlertComparator;
  }
  if ('threshold' in body) {
    if (typeof body.threshold !== 'number' || !Number.isFinite(body.threshold) || body.threshold < 0) return { ok: false, error: ALERT_ERRORS[4] };
    out.threshold = body.threshold;
  }
  if ('window_minutes' in body) {
    const w = body.window_minutes;
    if (!Number.isInteger(w) || (w as number) < MIN_WINDOW || (w as number) > MAX_WINDOW) return { ok: false, error: ALERT_ERRORS[6] };
    out.window_minutes = w as number;
  }
  if ('route' in body) {
    const route = body.route;
    if (route !== null && (typeof route !== 'string' || route.length === 0 || route.length > MAX_ALERT_ROUTE)) return { ok: false, error: ALERT_ERRORS[7] };
    out.route = route as string | null;
  }
  if ('recipients' in body) {
    const recipients = parseRecipients(body.recipients);
    if (!recipients) return { ok: false, error: ALERT_ERRORS[8] };
    out.recipients = recipients;
  }
  if ('enabled' in body) {
    if (typeof body.enabled !== 'boolean') return { ok: false, error: ALERT_ERRORS[10] };
    out.enabled = body.enabled;
  }
  return { ok: true, value: out };
}

/** The rules that hold across fields, for a rule as it would be stored. */
function coherent(rule: AlertFields): string | null {
  if (rule.metric === 'error_rate' && rule.threshold > 1) return ALERT_ERRORS[5];
  if (rule.route !== null && !API_METRICS.has(rule.metric)) return ALERT_ERRORS[7];
  return null;
}

/**
 * A create request: name, metric, comparator, threshold and window_minutes are required;
 * recipients default to `defaultRecipient` (the ID token's e-mail), required without one.
 */
export function parseAlertCreate(body: unknown, defaultRecipient: string | null, byKey: boolean): Parsed<AlertFields> {
  if (!isObject(body)) return { ok: false, error: ALERT_ERRORS[0] };
  const parsed = fieldsOf(body);
  if (!parsed.ok) return parsed;
  const f = parsed.value;
  for (const [key, error] of [['name', 1], ['metric', 2], ['comparator', 3], ['threshold', 4], ['window_minutes', 6]] as const) {
    if (f[key] === undefined) return { ok: false, error: ALERT_ERRORS[error] };
  }
  const recipients = f.recipients ?? (defaultRecipient && !byKey ? [defaultRecipient] : null);
  if (!recipients) return { ok: false, error: byKey ? ALERT_ERRORS[9] : ALERT_ERRORS[8] };
  const rule: AlertFields = {
    name: f.name as string,
    metric: f.metric as AlertMetric,
    comparator: f.comparator as AlertComparator,
    threshold: f.threshold as number,
    window_minutes: f.window_minutes as number,
    route: f.route ?? null,
    recipients,
    enabled: f.enabled ?? true,
  };
  const error = coherent(rule);
  return error ? { ok: false, error } : { ok: true, value: rule };
}

/** A change: any of the fields, checked against the rule as it would become. */
export function parseAlertPatch(body: unknown, current: AlertFields): Parsed<Partial<AlertFields>> {
  if (!isObject(body)) return { ok: false, error: ALERT_ERRORS[0] };
  const parsed = fieldsOf(body);
  if (!parsed.ok) return parsed;
  const error = coherent({ ...current, ...parsed.value });
  return error ? { ok: false, error } : parsed;
}

/** What a measured value makes of the rule's state; null (no data) keeps it. */
export function nextState(rule: Pick<AlertRuleRecord, 'comparator' | 'threshold'>, value: number | null): AlertState | null {
  if (value === null) return null;
  return (rule.comparator === '>' ? value > rule.threshold : value < rule.threshold) ? 'firing' : 'ok';
}

/** The window a check of `minute` measures: the window_minutes before it. */
export const windowOf = (rule: Pick<AlertRuleRecord, 'window_minutes'>, minute: Date): { from: number; to: number } => ({
  from: minute.getTime() - rule.window_minutes * 60_000,
  to: minute.getTime(),
});

/** A rule as the API answers it (history newest first, at most 20). */
export function alertView(rule: AlertRuleRecord) {
  const { site: _site, owner_uid: _owner, ...view } = rule;
  return { ...view, history: rule.history.slice(0, 20) };
}
