/**
 * Port: alert rules, stored under their site; their state moves by
 * conditional writes so that one check run, and only one, sends each mail.
 */
export type AlertMetric = 'error_rate' | 'p95_ms' | 'requests' | 'pageviews' | 'visitors';
export type AlertComparator = '>' | '<';
export type AlertState = 'ok' | 'firing';

export interface AlertRuleRecord {
  id: string;
  site: string;
  owner_uid: string;
  name: string;
  metric: AlertMetric;
  comparator: AlertComparator;
  threshold: number;
  /** 5..1440 */
  window_minutes: number;
  route: string | null;
  recipients: string[];
  enabled: boolean;
  state: AlertState;
  last_evaluated_at: string | null;
  last_changed_at: string | null;
  created_at: string;
  /** The last state changes, newest first (at most 20): {at, state, value}; empty in listEnabledAlertRules. */
  history: { at: string; state: AlertState; value: number | null }[];
}

export interface AlertRules {
  createAlertRule(rule: AlertRuleRecord, maxPerSite: number): Promise<boolean>;
  listAlertRules(site: string): Promise<AlertRuleRecord[]>;
  getAlertRule(site: string, id: string): Promise<AlertRuleRecord | null>;
  updateAlertRule(site: string, id: string, patch: Partial<AlertRuleRecord>): Promise<AlertRuleRecord | null>;
  deleteAlertRule(site: string, id: string): Promise<boolean>;
  /** Every enabled rule of every site (the every-minute check). */
  listEnabledAlertRules(): Promise<AlertRuleRecord[]>;
  /**
   * Moves a rule from `from` to `to` only if it is still in `from` and was last evaluated
   * before `minute` (ISO); true for the one caller whose write won. Records the change in history.
   */
  changeAlertState(site: string, id: string, from: AlertState, to: AlertState, minute: string, value: number | null): Promise<boolean>;
  /** Sets last_evaluated_at (no state change), never back in time. */
  recordAlertEvaluated(site: string, id: string, at: string): Promise<void>;
}
