/** The fields e-mail reports and the workspace digest share: how often, in which time zone, to whom. */
import { browserTimezone } from '../report-state.ts';

export const FREQUENCIES = [
  ['daily', 'Daily (the previous day)'],
  ['weekly', 'Weekly on Mondays (the previous week)'],
  ['monthly', 'Monthly on the 1st (the previous month)'],
] as const;

export interface DigestFields {
  frequency: string;
  tz: string;
  recipients: string;
}

/** Recipients as typed (comma-separated) to the API's list; none left out. */
export const recipientList = (text: string) =>
  text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);

/** Frequency, time zone and recipients; `inherit` offers "Account default" (a site report's fields may follow the defaults). */
export function DigestFieldInputs({ f, set, inherit = false }: { f: DigestFields; set: (f: DigestFields) => void; inherit?: boolean }) {
  const field = (key: keyof DigestFields) => (e: Event) => set({ ...f, [key]: (e.currentTarget as HTMLInputElement).value });
  return (
    <>
      <label class="control">
        <span>Frequency</span>
        <select value={f.frequency} onChange={field('frequency')}>
          {inherit && <option value="">Account default</option>}
          {FREQUENCIES.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </label>
      <label class="control">
        <span>Time zone{inherit ? ' (empty: account default)' : ''}</span>
        <input value={f.tz} onInput={field('tz')} placeholder={inherit ? '' : browserTimezone()} />
      </label>
      <label class="control grow">
        <span>Recipients (comma-separated{inherit ? '; empty: account default' : ''})</span>
        <input value={f.recipients} onInput={field('recipients')} placeholder="team@example.com" />
      </label>
    </>
  );
}
