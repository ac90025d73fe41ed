/** What the goal and funnel editors share: a goal's or step's type and match, its fields, its text, and a call whose refusal a form shows. */
import { ApiError } from '../api.ts';

export type GoalType = 'page' | 'event';
export interface Step {
  type: GoalType;
  match: string;
}
export const MATCH_HINT: Record<GoalType, string> = {
  page: 'A path: /pricing, or with * for any characters: /blog/*',
  event: 'An event name, as sent with tt_event',
};

export const stepText = (s: Step) => (s.type === 'page' ? `Visit ${s.match}` : `Event ${s.match}`);

/** A result or the API's refusal text, for a form to show. */
export async function attempt(call: () => Promise<unknown>): Promise<string | null> {
  try {
    await call();
    return null;
  } catch (e) {
    return e instanceof ApiError ? e.message : 'The request failed.';
  }
}

export function MatchFields({ step, onChange, idPrefix }: { step: Step; onChange: (s: Step) => void; idPrefix: string }) {
  return (
    <>
      <label class="control">
        <span>Type</span>
        <select id={`${idPrefix}-type`} value={step.type} onChange={(e) => onChange({ ...step, type: (e.currentTarget as HTMLSelectElement).value as GoalType })}>
          <option value="page">Page visit</option>
          <option value="event">Custom event</option>
        </select>
      </label>
      <label class="control grow">
        <span>{step.type === 'page' ? 'Path' : 'Event name'}</span>
        <input id={`${idPrefix}-match`} required value={step.match} placeholder={step.type === 'page' ? '/pricing' : 'signup'} title={MATCH_HINT[step.type]} onInput={(e) => onChange({ ...step, match: (e.currentTarget as HTMLInputElement).value })} />
      </label>
    </>
  );
}

