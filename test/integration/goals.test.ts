/**
 * Goals, funnels, their stats and event metadata over HTTP: the real
 * handlers on dynalite and DuckDB, data sent as beacons through the collector.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
let site: string;

const goalsOf = (h: string, token = owner) => svc.req('GET', `/api/sites/${h}/goals`, { token });
const post = (path: string, body: unknown, token = owner) => svc.req('POST', path, { token, body });
const statusAndError = (r: { status: number; json: { error?: string } }) => [r.status, r.json?.error];

/** One visitor per user agent (the local collector reads the same address for all). */
const ua = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.${n}.0 Safari/537.36`;
async function beacon(hostname: string, visitor: number, body: Record<string, unknown>) {
  const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname, ua: ua(visitor), timezone: 'Europe/Berlin', ...body }), headers: { 'user-agent': ua(visitor) } });
  expect(r.text).toBe('ok');
}

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('goal-owner');
  site = await svc.site(owner, { prefix: 'goals' });
});
afterAll(() => svc.stop());

describe('goal routes', () => {
  it('creates page and event goals with default names and normalized event names, lists oldest first, changes and deletes', async () => {
    const h = await svc.site(owner, { prefix: 'goal-crud', verify: false });
    const page = await post(`/api/sites/${h}/goals`, { type: 'page', match: '/blog/*' });
    expect([page.status, page.json]).toEqual([201, { id: expect.any(String), name: 'Visit /blog/*', type: 'page', match: '/blog/*', created_at: expect.any(String) }]);
    const event = await post(`/api/sites/${h}/goals`, { type: 'event', match: 'Sign up!', name: ' Signups ' });
    expect(event.json).toMatchObject({ name: 'Signups', type: 'event', match: 'Sign_up' });
    expect((await goalsOf(h)).json.goals.map((g: { id: string }) => g.id)).toEqual([page.json.id, event.json.id]);
    const changed = await svc.req('PATCH', `/api/sites/${h}/goals/${page.json.id}`, { token: owner, body: { match: '*/pricing' } });
    expect([changed.status, changed.json]).toEqual([200, { ...page.json, match: '*/pricing' }]);
    // A path is no event name: a new type comes with its match.
    expect(statusAndError(await svc.req('PATCH', `/api/sites/${h}/goals/${page.json.id}`, { token: owner, body: { type: 'event' } }))).toEqual([400, 'a new type needs its match']);
    expect(statusAndError(await svc.req('PATCH', `/api/sites/${h}/goals/${page.json.id}`, { token: owner, body: { type: 'event', match: '/' } }))).toEqual([
      400,
      'match must be an event name with at least one letter or digit',
    ]);
    expect(await svc.req('DELETE', `/api/sites/${h}/goals/${page.json.id}`, { token: owner }).then((r) => [r.status, r.json])).toEqual([200, { deleted: page.json.id }]);
    expect(statusAndError(await svc.req('DELETE', `/api/sites/${h}/goals/${page.json.id}`, { token: owner }))).toEqual([404, 'unknown goal']);
    expect(statusAndError(await svc.req('PATCH', `/api/sites/${h}/goals/not-a-uuid`, { token: owner, body: {} }))).toEqual([404, 'unknown goal']);
    expect((await goalsOf(h)).json.goals).toEqual([event.json]);
  });

  it('refuses bad goals with their texts, a second goal of the same match, and a 51st', async () => {
    const h = await svc.site(owner, { prefix: 'goal-bad', verify: false });
    const bad = async (body: unknown) => statusAndError(await post(`/api/sites/${h}/goals`, body));
    expect(await bad('nope')).toEqual([400, 'invalid goal']);
    expect(await bad({ type: 'click', match: '/' })).toEqual([400, 'type must be page or event']);
    const path = 'match must be a path starting with / or * (at most 1,024 characters, no spaces; * matches any characters)';
    expect(await bad({ type: 'page', match: 'pricing' })).toEqual([400, path]);
    expect(await bad({ type: 'page', match: '/a b' })).toEqual([400, path]);
    expect(await bad({ type: 'page', match: `/${'a'.repeat(1024)}` })).toEqual([400, path]);
    expect(await bad({ type: 'page' })).toEqual([400, path]);
    expect(await bad({ type: 'event', match: '!!!' })).toEqual([400, 'match must be an event name with at least one letter or digit']);
    expect(await bad({ type: 'event', match: 'x', name: '' })).toEqual([400, 'name must be 1 to 100 characters']);
    expect(await bad({ type: 'event', match: 'x', name: 'n'.repeat(101) })).toEqual([400, 'name must be 1 to 100 characters']);
    expect((await post(`/api/sites/${h}/goals`, { type: 'event', match: 'Sign_up' })).status).toBe(201);
    // Names compare as stored: case counts.
    expect(await bad({ type: 'event', match: 'sign up' })).toEqual([201, undefined]);
    expect(await bad({ type: 'event', match: 'Sign up' })).toEqual([409, 'a goal with this type and match already exists']);
    for (let i = 0; i < 48; i++) expect((await post(`/api/sites/${h}/goals`, { type: 'page', match: `/p${i}` })).status).toBe(201);
    expect(await bad({ type: 'page', match: '/one-more' })).toEqual([400, 'goal limit reached']);
  });

  it('keeps funnels of 2 to 6 steps, each step checked, and 20 per site', async () => {
    const h = await svc.site(owner, { prefix: 'funnel-crud', verify: false });
    const steps = [{ type: 'page', match: '/' }, { type: 'event', match: 'Add to cart' }];
    const created = await post(`/api/sites/${h}/funnels`, { name: 'checkout', steps });
    expect([created.status, created.json]).toEqual([201, { id: expect.any(String), name: 'checkout', steps: [steps[0], { type: 'event', match: 'Add_to_cart' }], created_at: expect.any(String) }]);
    const bad = async (body: unknown) => statusAndError(await post(`/api/sites/${h}/funnels`, body));
    expect(await bad({ name: 'x', steps: steps.slice(0, 1) })).toEqual([400, 'steps must be a list of 2 to 6 steps']);
    expect(await bad({ name: 'x', steps: Array.from({ length: 7 }, (_, i) => ({ type: 'page', match: `/${i}` })) })).toEqual([400, 'steps must be a list of 2 to 6 steps']);
    expect(await bad({ name: 'x', steps: [steps[0], { type: 'goal', match: 'x' }] })).toEqual([400, 'each step must be an object with type page or event and a match']);
    expect(await bad({ name: 'x', steps: [steps[0], { type: 'page', match: 'x' }] })).toEqual([
      400,
      "a page step's match must be a path starting with / or * (at most 1,024 characters, no spaces; * matches any characters)",
    ]);
    expect(await bad({ name: 'x', steps: [steps[0], { type: 'event', match: '' }] })).toEqual([400, "an event step's match must be an event name with at least one letter or digit"]);
    expect(await bad({ steps })).toEqual([400, 'name must be 1 to 100 characters']);
    expect(await bad([])).toEqual([400, 'invalid funnel']);
    const six = Array.from({ length: 6 }, (_, i) => ({ type: 'page', match: `/${i}` }));
    const patched = await svc.req('PATCH', `/api/sites/${h}/funnels/${created.json.id}`, { token: owner, body: { steps: six } });
    expect([patched.status, patched.json.steps]).toEqual([200, six]);
    expect((await svc.req('GET', `/api/sites/${h}/funnels`, { token: owner })).json.funnels).toEqual([patched.json]);
    for (let i = 1; i < 20; i++) expect((await post(`/api/sites/${h}/funnels`, { name: `f${i}`, steps })).status).toBe(201);
    expect(await bad({ name: 'one more', steps })).toEqual([400, 'funnel limit reached']);
    expect(await svc.req('DELETE', `/api/sites/${h}/funnels/${created.json.id}`, { token: owner }).then((r) => [r.status, r.json])).toEqual([200, { deleted: created.json.id }]);
    expect(statusAndError(await svc.req('GET', `/api/sites/${h}/funnels/${created.json.id}/stats`, { token: owner }))).toEqual([403, 'Install your tracking script to verify this site first']);
  });

  it('owner only, also for public sites: keys by scope, other accounts 404, anonymous reads 404 and changes 401', async () => {
    const h = await svc.site(owner, { prefix: 'goal-access' });
    await svc.req('PATCH', `/api/sites/${h}`, { token: owner, body: { is_public: true } });
    const goal = (await post(`/api/sites/${h}/goals`, { type: 'page', match: '/' })).json;
    const read = await svc.key(owner, ['read']);
    const manage = await svc.key(owner, ['manage']);
    expect((await goalsOf(h, read.key)).status).toBe(200);
    expect(statusAndError(await post(`/api/sites/${h}/goals`, { type: 'page', match: '/r' }, read.key))).toEqual([403, 'scope manage required']);
    expect((await post(`/api/sites/${h}/goals`, { type: 'page', match: '/m' }, manage.key)).status).toBe(201);
    expect(statusAndError(await goalsOf(h, manage.key))).toEqual([403, 'scope read required']);
    const stranger = await svc.token('goal-stranger');
    for (const path of ['goals', 'goals/stats', 'funnels', 'events/x/metadata']) {
      expect(statusAndError(await svc.req('GET', `/api/sites/${h}/${path}`, { token: stranger })), path).toEqual([404, 'unknown site']);
      expect(statusAndError(await svc.req('GET', `/api/sites/${h}/${path}`)), path).toEqual([404, 'unknown site']);
    }
    expect(statusAndError(await post(`/api/sites/${h}/goals`, { type: 'page', match: '/s' }, stranger))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('DELETE', `/api/sites/${h}/goals/${goal.id}`, { token: stranger }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await post(`/api/sites/${h}/goals`, { type: 'page', match: '/s' }, ''))).toEqual([401, 'sign in required']);
    // The public reports stay public, but a goal filter is the owner's.
    expect((await svc.req('GET', `/api/sites/${h}/overview`)).status).toBe(200);
    expect(statusAndError(await svc.req('GET', `/api/sites/${h}/overview?filter=goal:${goal.id}`))).toEqual([400, 'invalid filter']);
    expect((await svc.req('GET', `/api/sites/${h}/overview?filter=goal:${goal.id}`, { token: owner })).status).toBe(200);
  });

  it('removes goals and funnels with the site', async () => {
    const h = await svc.site(owner, { prefix: 'goal-cascade', verify: false });
    await post(`/api/sites/${h}/goals`, { type: 'page', match: '/' });
    await post(`/api/sites/${h}/funnels`, { name: 'f', steps: [{ type: 'page', match: '/' }, { type: 'page', match: '/b' }] });
    expect((await svc.req('DELETE', `/api/sites/${h}`, { token: owner })).status).toBe(200);
    expect((await post('/api/sites', { hostname: h })).status).toBe(201);
    expect((await goalsOf(h)).json).toEqual({ goals: [] });
    expect((await svc.req('GET', `/api/sites/${h}/funnels`, { token: owner })).json).toEqual({ funnels: [] });
  });
});

describe('goal and funnel stats, the goal filter and event metadata, from beacons', () => {
  let signup: { id: string };
  let funnel: { id: string };
  const from = Math.floor(Date.now() / 1000) - 3600;
  const range = () => `from=${from}&to=${Math.floor(Date.now() / 1000) + 60}`;

  beforeAll(async () => {
    signup = (await post(`/api/sites/${site}/goals`, { type: 'event', match: 'Sign up' })).json;
    await post(`/api/sites/${site}/goals`, { type: 'page', match: '/pricing*' });
    funnel = (await post(`/api/sites/${site}/funnels`, { name: 'signup', steps: [{ type: 'page', match: '/' }, { type: 'page', match: '/pricing' }, { type: 'event', match: 'Sign_up' }] })).json;
    // 1: the whole funnel from Google; 2: pricing before home (steps out of order), then signs up; 3: home only.
    await beacon(site, 1, { path: '/', referrer: 'https://www.google.com/' });
    await beacon(site, 1, { path: '/pricing' });
    await beacon(site, 1, { type: 'event', event: 'Sign up', path: '/pricing', metadata: { plan: 'pro', seats: 3 } });
    await beacon(site, 2, { path: '/pricing', referrer: 'https://news.example/' });
    await beacon(site, 2, { path: '/' });
    await beacon(site, 2, { type: 'event', event: 'Sign up', path: '/', metadata: { plan: 'free' } });
    await beacon(site, 3, { path: '/' });
    await svc.until(() => svc.req('GET', `/api/sites/${site}/overview/summary?${range()}`, { token: owner }), (r) => r.json?.events?.totals?.count === 2);
    await svc.until(() => svc.req('GET', `/api/sites/${site}/overview?${range()}`, { token: owner }), (r) => r.json?.totals?.pageviews === 5);
  });

  it('answers goal stats per goal with the previous period', async () => {
    const r = await svc.req('GET', `/api/sites/${site}/goals/stats?${range()}`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.json.visitors).toBe(3);
    expect(r.json.goals.map((g: { name: string; conversions: number; visitors: number; conversion_rate: number }) => [g.name, g.conversions, g.visitors, g.conversion_rate])).toEqual([
      ['Sign_up', 2, 2, 0.6667],
      ['Visit /pricing*', 2, 2, 0.6667],
    ]);
    expect(r.json.previous.map((g: { conversions: number }) => g.conversions)).toEqual([0, 0]);
    expect(statusAndError(await svc.req('GET', `/api/sites/${site}/goals/stats?from=x`, { token: owner }))).toEqual([400, 'invalid range']);
  });

  it('answers a funnel per step in order', async () => {
    const r = await svc.req('GET', `/api/sites/${site}/funnels/${funnel.id}/stats?${range()}`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.json.steps.map((s: { visitors: number; dropoff: number; conversion_rate: number }) => [s.visitors, s.dropoff, s.conversion_rate])).toEqual([
      [3, 0, 1],
      [1, 2, 0.3333],
      [1, 0, 0.3333],
    ]);
    expect(statusAndError(await svc.req('GET', `/api/sites/${site}/funnels/00000000-0000-4000-8000-000000000000/stats`, { token: owner }))).toEqual([404, 'unknown funnel']);
  });

  it('narrows a breakdown to the visitor-days that converted, and refuses a goal that is not the site’s', async () => {
    const all = await svc.req('GET', `/api/sites/${site}/breakdown?dim=sources&${range()}`, { token: owner });
    expect(all.json.rows.map((r: { name: string }) => r.name).sort()).toEqual(['Google', 'news.example']);
    const converted = await svc.req('GET', `/api/sites/${site}/breakdown?dim=pages&${range()}&filter=goal:${signup.id}`, { token: owner });
    expect(converted.json.rows).toEqual([{ name: '/', value: 2, visitors: 2 }, { name: '/pricing', value: 2, visitors: 2 }]);
    expect(statusAndError(await svc.req('GET', `/api/sites/${site}/breakdown?dim=pages&filter=goal:00000000-0000-4000-8000-000000000000`, { token: owner }))).toEqual([400, 'invalid filter']);
    expect(statusAndError(await svc.req('GET', `/api/sites/${site}/breakdown?dim=pages&filter=goal!${signup.id}`, { token: owner }))).toEqual([400, 'invalid filter']);
  });

  it('lists an event’s metadata keys and a key’s values', async () => {
    const keys = await svc.req('GET', `/api/sites/${site}/events/Sign%20up/metadata?${range()}`, { token: owner });
    expect([keys.status, keys.json]).toEqual([200, { event: 'Sign_up', keys: [{ key: 'plan', count: 2, visitors: 2 }, { key: 'seats', count: 1, visitors: 1 }] }]);
    const values = await svc.req('GET', `/api/sites/${site}/events/Sign_up/metadata?${range()}&key=plan&limit=1`, { token: owner });
    expect(values.json).toEqual({ event: 'Sign_up', key: 'plan', values: [{ value: 'free', count: 1, visitors: 1 }] });
  });
});
