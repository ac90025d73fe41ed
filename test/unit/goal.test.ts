import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { likePattern, parseFunnelCreate, parseFunnelPatch, parseGoalCreate, parseGoalPatch, pathMatches } from '#domain/goals/goal.ts';
import { parseFilter, withGoalWindow } from '#domain/reports/filter.ts';

/** LIKE as SQL reads it: `%` any run, `_` one character, `\` escaping the next. */
function like(value: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') re += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u').test(value);
}

describe('page goal matches', () => {
  it('reads * as any characters, slashes included, and nothing else as a wildcard', () => {
    expect(pathMatches('/blog/*', '/blog/a/b')).toBe(true);
    expect(pathMatches('/blog/*', '/blog')).toBe(false);
    expect(pathMatches('*/pricing', '/de/pricing')).toBe(true);
    expect(pathMatches('*/pricing', '/pricing/x')).toBe(false);
    expect(pathMatches('/a_b', '/axb')).toBe(false);
    expect(pathMatches('/50%*', '/50%off')).toBe(true);
    expect(pathMatches('/50%*', '/500off')).toBe(false);
  });

  it('writes a LIKE pattern that matches exactly the paths the match does', () => {
    const piece = fc.constantFrom('/', 'a', '_', '%', '\\', '*', 'b');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => `/${p.join('')}`), fc.array(piece, { maxLength: 6 }).map((p) => `/${p.join('')}`), (match, path) => {
        expect(like(path, likePattern(match))).toBe(pathMatches(match, path));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('goal and funnel requests', () => {
  it('normalizes event names as the collector does and names goals by default', () => {
    expect(parseGoalCreate({ type: 'event', match: ' Sign up! ' })).toEqual({ ok: true, value: { type: 'event', match: 'Sign_up', name: 'Sign_up' } });
    expect(parseGoalCreate({ type: 'page', match: '/x' })).toEqual({ ok: true, value: { type: 'page', match: '/x', name: 'Visit /x' } });
    expect(parseGoalCreate({ type: 'page', match: '/x', name: '  Pricing  ' })).toMatchObject({ ok: true, value: { name: 'Pricing' } });
  });

  it('keeps a changed goal whole: a new type needs its match, a kept match is checked again', () => {
    const current = { type: 'page' as const, match: '/blog/*', name: 'Blog' };
    expect(parseGoalPatch({ type: 'event' }, current)).toEqual({ ok: false, error: 'a new type needs its match' });
    expect(parseGoalPatch({ name: 'B' }, current)).toEqual({ ok: true, value: { ...current, name: 'B' } });
    expect(parseGoalPatch({ type: 'event', match: 'signup' }, current)).toEqual({ ok: true, value: { type: 'event', match: 'signup', name: 'Blog' } });
  });

  it('takes 2 to 6 funnel steps', () => {
    const step = { type: 'page', match: '/' };
    expect(parseFunnelCreate({ name: 'f', steps: [step] })).toEqual({ ok: false, error: 'steps must be a list of 2 to 6 steps' });
    expect(parseFunnelCreate({ name: 'f', steps: Array(7).fill(step) })).toEqual({ ok: false, error: 'steps must be a list of 2 to 6 steps' });
    expect(parseFunnelCreate({ name: 'f', steps: Array(6).fill(step) })).toMatchObject({ ok: true });
    expect(parseFunnelPatch({})).toEqual({ ok: true, value: {} });
  });
});

describe('the goal filter clause', () => {
  it('parses goal:<id> only, and gives each read its own window', () => {
    expect(parseFilter('goal:abc;page:%2F')).toEqual([{ dim: 'goal', op: 'eq', value: 'abc' }, { dim: 'page', op: 'eq', value: '/' }]);
    expect(parseFilter('goal!abc')).toBeNull();
    expect(parseFilter('goal~abc')).toBeNull();
    expect(parseFilter('goal:')).toBeNull();
    const sites = [{ site: 's', registration: 'r' }];
    expect(withGoalWindow([{ dim: 'goal', op: 'eq', value: 'a' }, { dim: 'page', op: 'eq', value: '/' }, { dim: 'event', op: 'neq', value: 'x' }], sites, 1, 2)).toEqual([
      { dim: 'goal', op: 'eq', value: 'a', window: { from: 1, to: 2, sites } },
      { dim: 'page', op: 'eq', value: '/' },
      { dim: 'event', op: 'neq', value: 'x', window: { from: 1, to: 2, sites } },
    ]);
  });
});
