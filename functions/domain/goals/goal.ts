/**
 * Goals and funnels (issue 37; spec part 6 rule 7): what a goal or a funnel
 * step matches and how a request creates or changes one. A page goal matches
 * a canonical pageview's path exactly, or with `*` wildcards that stand for
 * any run of characters (slashes included): `/blog/*`, `*\/pricing`. An event
 * goal matches a custom event's name, normalized as the collector normalizes
 * it (spec part 6 rule 3), so `Sign up!` and `Sign_up` are one goal.
 */
import { normalizeEventName } from '#domain/event-name.ts';
import type { FunnelRecord, GoalMatch, GoalRecord, GoalType } from '#ports/goals.ts';

export const MAX_GOALS = 50;
export const MAX_FUNNELS = 20;
export const MIN_FUNNEL_STEPS = 2;
export const MAX_FUNNEL_STEPS = 6;
export const MAX_GOAL_NAME = 100;
export const MAX_PAGE_MATCH = 1024;
export const WILDCARD = '*';

export const GOAL_ERRORS = [
  'invalid goal',
  `name must be 1 to ${MAX_GOAL_NAME} characters`,
  'type must be page or event',
  `match must be a path starting with / or * (at most ${MAX_PAGE_MATCH.toLocaleString('en-US')} characters, no spaces; * matches any characters)`,
  'match must be an event name with at least one letter or digit',
  'a new type needs its match',
] as const;

export const FUNNEL_ERRORS = [
  'invalid funnel',
  `name must be 1 to ${MAX_GOAL_NAME} characters`,
  `steps must be a list of ${MIN_FUNNEL_STEPS} to ${MAX_FUNNEL_STEPS} steps`,
  'each step must be an object with type page or event and a match',
  `a page step's match must be a path starting with / or * (at most ${MAX_PAGE_MATCH.toLocaleString('en-US')} characters, no spaces; * matches any characters)`,
  "an event step's match must be an event name with at least one letter or digit",
] as const;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A path pattern: starts with `/` or `*`, no whitespace or control characters. */
const PAGE_MATCH = /^[/*][^\s\p{Cc}]*$/u;

/** The stored match of a goal or step, or a reason it is none: `type` decides how `raw` is read. */
function matchOf(type: GoalType, raw: unknown): { ok: true; match: string } | { ok: false; why: 'page' | 'event' } {
  if (type === 'page') {
    return typeof raw === 'string' && raw.length <= MAX_PAGE_MATCH && PAGE_MATCH.test(raw) ? { ok: true, match: raw } : { ok: false, why: 'page' };
  }
  const name = typeof raw === 'string' || typeof raw === 'number' ? normalizeEventName(String(raw)) : '';
  return name ? { ok: true, match: name } : { ok: false, why: 'event' };
}

const isGoalType = (v: unknown): v is GoalType => v === 'page' || v === 'event';

function nameOf(raw: unknown): string | null {
  const name = typeof raw === 'string' ? raw.trim() : '';
  return name.length > 0 && name.length <= MAX_GOAL_NAME ? name : null;
}

/** The name a goal gets when the request gives none. */
export const defaultGoalName = (goal: GoalMatch) => (goal.type === 'page' ? `Visit ${goal.match}` : goal.match);

export type GoalFields = Pick<GoalRecord, 'name' | 'type' | 'match'>;

/** A goal as it would become with `body` applied to `current` (a create has none): type, match and name checked together. */
function goalFields(body: unknown, current: GoalFields | null): Parsed<GoalFields> {
  if (!isObject(body)) return { ok: false, error: GOAL_ERRORS[0] };
  if ('name' in body && nameOf(body.name) === null) return { ok: false, error: GOAL_ERRORS[1] };
  const type = 'type' in body ? body.type : current?.type;
  if (!isGoalType(type)) return { ok: false, error: GOAL_ERRORS[2] };
  // A page path read as an event name would change silently (`/blog/*` → `blog`).
  if (current && type !== current.type && !('match' in body)) return { ok: false, error: GOAL_ERRORS[5] };
  const match = matchOf(type, 'match' in body ? body.match : current?.match);
  if (!match.ok) return { ok: false, error: match.why === 'page' ? GOAL_ERRORS[3] : GOAL_ERRORS[4] };
  const goal = { type, match: match.match };
  const name = 'name' in body ? (nameOf(body.name) as string) : (current?.name ?? defaultGoalName(goal));
  return { ok: true, value: { ...goal, name } };
}

/** A create request: `type` and `match` required, `name` defaults to "Visit /path" or the event name. */
export const parseGoalCreate = (body: unknown): Parsed<GoalFields> => goalFields(body, null);

/** A change: any of name, type and match. */
export const parseGoalPatch = (body: unknown, current: GoalFields): Parsed<GoalFields> => goalFields(body, current);

/** Whether two goals match the same rows. */
export const sameMatch = (a: GoalMatch, b: GoalMatch) => a.type === b.type && a.match === b.match;

function stepsOf(raw: unknown): Parsed<GoalMatch[]> {
  if (!Array.isArray(raw) || raw.length < MIN_FUNNEL_STEPS || raw.length > MAX_FUNNEL_STEPS) return { ok: false, error: FUNNEL_ERRORS[2] };
  const steps: GoalMatch[] = [];
  for (const step of raw) {
    if (!isObject(step) || !isGoalType(step.type)) return { ok: false, error: FUNNEL_ERRORS[3] };
    const match = matchOf(step.type, step.match);
    if (!match.ok) return { ok: false, error: match.why === 'page' ? FUNNEL_ERRORS[4] : FUNNEL_ERRORS[5] };
    steps.push({ type: step.type, match: match.match });
  }
  return { ok: true, value: steps };
}

export type FunnelFields = Pick<FunnelRecord, 'name' | 'steps'>;

/** A create request: a name and 2 to 6 steps, each a page or event match. */
export function parseFunnelCreate(body: unknown): Parsed<FunnelFields> {
  if (!isObject(body)) return { ok: false, error: FUNNEL_ERRORS[0] };
  const name = nameOf(body.name);
  if (name === null) return { ok: false, error: FUNNEL_ERRORS[1] };
  const steps = stepsOf(body.steps);
  return steps.ok ? { ok: true, value: { name, steps: steps.value } } : steps;
}

/** A change: the name, the steps, or both. */
export function parseFunnelPatch(body: unknown): Parsed<Partial<FunnelFields>> {
  if (!isObject(body)) return { ok: false, error: FUNNEL_ERRORS[0] };
  const out: Partial<FunnelFields> = {};
  if ('name' in body) {
    const name = nameOf(body.name);
    if (name === null) return { ok: false, error: FUNNEL_ERRORS[1] };
    out.name = name;
  }
  if ('steps' in body) {
    const steps = stepsOf(body.steps);
    if (!steps.ok) return steps;
    out.steps = steps.value;
  }
  return { ok: true, value: out };
}

/** Oldest first, then by id: the order lists and stats answer in. */
export const byCreation = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

export const goalView = ({ site: _site, ...goal }: GoalRecord) => goal;
export const funnelView = ({ site: _site, ...funnel }: FunnelRecord) => funnel;

/**
 * A page match as a LIKE pattern: `*` becomes `%`, and the characters LIKE reads otherwise
 * (`%`, `_`, and the escape `\`) are escaped with `\`. A match without `*` is compared exactly.
 */
export function likePattern(match: string): string {
  return match
    .split(WILDCARD)
    .map((part) => part.replace(/[\\%_]/g, (c) => `\\${c}`))
    .join('%');
}

/** Whether a page match has wildcards (a LIKE) or is a plain path (an equality). */
export const hasWildcard = (match: string) => match.includes(WILDCARD);

/** The same test in JS: the reference the property and unit tests compare the stores and the LIKE pattern with. */
export function pathMatches(match: string, path: string): boolean {
  if (!hasWildcard(match)) return match === path;
  const parts = match.split(WILDCARD).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`, 'u').test(path);
}
