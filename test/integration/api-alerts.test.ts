/**
 * Alert rules over HTTP (real handlers, dynalite, DuckDB) and their
 * every-minute check with a controlled clock: the check is the same entry the
 * scheduler calls, handed the minutes chosen here; mail lands in the outbox
 * (DATA_DIR/outbox/), whose files are read back.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import { readOutbox, subjectOf } from '../support/outbox.ts';

const outbox = () => readOutbox(svc.dataDir);
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { registrationKey } from '#domain/registration.ts';
import { createAlertChecker } from '#workers/alert-checks.ts';
import { log } from '#platform/log.ts';

let svc: TestService;
let owner: string;
let site: string;

const rule = (extra: Record<string, unknown> = {}) => ({ name: 'errors', metric: 'error_rate', comparator: '>', threshold: 0.5, window_minutes: 5, ...extra });

beforeAll(async () => {
  svc = await startTestService();
  owner = await mintIdToken(loadIssuerKey(svc.dataDir), 'alert-owner', { email: 'owner@example.com' });
  site = await svc.site(owner, { prefix: 'api-alerts', kind: 'api', verify: false });
});
afterAll(() => svc.stop());

describe('alert rule routes', () => {
  it('creates with the ID token e-mail as the default recipient, lists, changes and deletes', async () => {
    const created = await svc.req('POST', `/api/sites/${site}/alerts`, { token: owner, body: rule({ name: ' slow ', metric: 'p95_ms', threshold: 800, route: '/orders' }) });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String), name: 'slow', metric: 'p95_ms', comparator: '>', threshold: 800, window_minutes: 5, route: '/orders',
      recipients: ['owner@example.com'], enabled: true, state: 'ok', last_evaluated_at: null, last_changed_at: null, created_at: expect.any(String), history: [],
    });
    const patched = await svc.req('PATCH', `/api/sites/${site}/alerts/${created.json.id}`, { token: owner, body: { threshold: 500, enabled: false } });
    expect(patched.json).toMatchObject({ threshold: 500, enabled: false, state: 'ok' });
    const list = await svc.req('GET', `/api/sites/${site}/alerts`, { token: owner });
    expect(list.json.alerts.map((a: { id: string }) => a.id)).toContain(created.json.id);
    expect(await svc.req('DELETE', `/api/sites/${site}/alerts/${created.json.id}`, { token: owner }).then((r) => [r.status, r.json])).toEqual([200, { deleted: created.json.id }]);
    expect(await svc.req('PATCH', `/api/sites/${site}/alerts/${created.json.id}`, { token: owner, body: {} }).then((r) => [r.status, r.json])).toEqual([404, { error: 'unknown alert rule' }]);
  });

  it('refuses bad fields with their texts; a management key must name recipients; 20 rules at most', async () => {
    const bad = async (body: unknown, token = owner) => svc.req('POST', `/api/sites/${site}/alerts`, { token, body }).then((r) => [r.status, r.json.error]);
    expect(await bad(rule({ metric: 'cpu' }))).toEqual([400, 'metric must be error_rate, p95_ms, requests, pageviews or visitors']);
    expect(await bad(rule({ comparator: '>=' }))).toEqual([400, 'comparator must be > or <']);
    expect(await bad(rule({ threshold: -1 }))).toEqual([400, 'threshold must be a number of at least 0']);
    expect(await bad(rule({ threshold: 5 }))).toEqual([400, 'error_rate threshold must be from 0 to 1']);
    expect(await bad(rule({ window_minutes: 4 }))).toEqual([400, 'window_minutes must be an integer from 5 to 1440']);
    expect(await bad(rule({ window_minutes: 1441 }))).toEqual([400, 'window_minutes must be an integer from 5 to 1440']);
    expect(await bad(rule({ metric: 'visitors', threshold: 3, route: '/x' }))).toEqual([400, 'route must be 1 to 256 characters, for error_rate, p95_ms or requests only']);
    expect(await bad(rule({ recipients: [] }))).toEqual([400, 'recipients must be 1 to 10 e-mail addresses']);
    expect(await bad(rule({ recipients: ['not-an-address'] }))).toEqual([400, 'recipients must be 1 to 10 e-mail addresses']);
    expect(await bad(rule({ recipients: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`) }))).toEqual([400, 'recipients must be 1 to 10 e-mail addresses']);
    expect(await bad(rule({ name: '' }))).toEqual([400, 'name must be 1 to 100 characters']);
    expect(await bad('nope')).toEqual([400, 'invalid alert rule']);
    const manage = await svc.key(owner, ['manage']);
    expect(await bad(rule(), manage.key)).toEqual([400, 'recipients are required with a management key']);
    // No e-mail in the token and no recipients.
    expect(await bad(rule(), await svc.token('alert-owner'))).toEqual([400, 'recipients must be 1 to 10 e-mail addresses']);
    const full = await svc.site(owner, { prefix: 'api-full', kind: 'api', verify: false });
    for (let i = 0; i < 20; i++) expect((await svc.req('POST', `/api/sites/${full}/alerts`, { token: manage.key, body: rule({ name: `r${i}`, recipients: ['ops@example.com'] }) })).status).toBe(201);
    expect(await svc.req('POST', `/api/sites/${full}/alerts`, { token: owner, body: rule() }).then((r) => [r.status, r.json])).toEqual([400, { error: 'alert rule limit reached' }]);
  });

  it('owner only, also for public sites: other accounts, expired tokens, revoked keys and keys without the scope', async () => {
    const read = await svc.key(owner, ['read']);
    const revoked = await svc.key(owner, ['read', 'manage']);
    await svc.req('DELETE', '/api/management-keys/self', { token: revoked.key });
    expect((await svc.req('GET', `/api/sites/${site}/alerts`, { token: read.key })).status).toBe(200);
    expect(await svc.req('POST', `/api/sites/${site}/alerts`, { token: read.key, body: rule() }).then((r) => [r.status, r.json])).toEqual([403, { error: 'scope manage required' }]);
    expect(await svc.req('GET', `/api/sites/${site}/alerts`, { token: await svc.token('other') }).then((r) => [r.status, r.json])).toEqual([404, { error: 'unknown site' }]);
    expect(await svc.req('GET', `/api/sites/${site}/alerts`, { token: await svc.token('alert-owner', -30) }).then((r) => [r.status, r.json])).toEqual([401, { error: 'sign in required' }]);
    expect(await svc.req('GET', `/api/sites/${site}/alerts`, { token: revoked.key }).then((r) => [r.status, r.json])).toEqual([401, { error: 'invalid or revoked management key' }]);
    const web = await svc.site(owner, { prefix: 'public-alerts' });
    await svc.req('PATCH', `/api/sites/${web}`, { token: owner, body: { is_public: true } });
    expect((await svc.req('GET', `/api/sites/${web}/alerts`)).status).toBe(401);
    expect((await svc.req('GET', `/api/sites/${web}/alerts`, { token: await svc.token('other') })).json).toEqual({ error: 'unknown site' });
  });

  it('the test send: ID token only, one outbox file to the recipients', async () => {
    const created = (await svc.req('POST', `/api/sites/${site}/alerts`, { token: owner, body: rule({ name: 'tested', recipients: ['a@example.com', 'b@example.com'] }) })).json;
    const manage = await svc.key(owner, ['manage']);
    expect(await svc.req('POST', `/api/sites/${site}/alerts/${created.id}/test`, { token: manage.key }).then((r) => [r.status, r.json])).toEqual([
      403,
      { error: 'management keys cannot call this endpoint' },
    ]);
    const before = outbox().length;
    expect(await svc.req('POST', `/api/sites/${site}/alerts/${created.id}/test`, { token: owner }).then((r) => [r.status, r.json])).toEqual([
      200,
      { sent: true, recipients: ['a@example.com', 'b@example.com'] },
    ]);
    const mails = outbox();
    expect(mails).toHaveLength(before + 1);
    expect(mails.at(-1)).toMatch(/^To: a@example.com, b@example.com$/m);
    expect(subjectOf(mails.at(-1) as string)).toBe(`[tinytrack] Test alert: tested (${site})`);
    const dir = join(svc.dataDir, 'outbox');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const n of readdirSync(dir)) expect(statSync(join(dir, n)).mode & 0o777).toBe(0o600);
  });
});

describe('every-minute checks (controlled clock)', () => {
  it('fire → one mail, still firing → none, resolve → one mail; a minute checked twice or by two runs at once mails once', async () => {
    const checked = await svc.site(owner, { prefix: 'api-checked', kind: 'api', verify: false });
    const name = '<script>alert(1)</script> & "errors"';
    const created = (await svc.req('POST', `/api/sites/${checked}/alerts`, { token: owner, body: rule({ name, recipients: ['oncall@example.com'] }) })).json;
    const registration = registrationKey('alert-owner', checked);
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    let n = 0;
    const requests = (at: number, statuses: number[]) =>
      svc.node.runtime.adapters.apiRequests.saveApiRequests(
        statuses.map((status) => ({ site: checked, registration, ts: at, id: `a${++n}`, method: 'GET', route: '/x', status, duration_ms: 10, bytes_in: null, bytes_out: null, consumer: null })),
      );
    const check = createAlertChecker({ ...svc.node.services, log });
    const mailsTo = () => outbox().filter((m) => /^To: oncall@example.com$/m.test(m));

    // 3 of 4 requests failed in the 5 minutes before `minute`: 0.75 > 0.5.
    await requests(minute - 2 * 60_000, [500, 500, 503, 200]);
    const [a, b] = await Promise.all([check(new Date(minute)), check(new Date(minute))]);
    expect(a.fired + b.fired).toBe(1);
    await check(new Date(minute));
    expect(mailsTo()).toHaveLength(1);
    const fired = mailsTo()[0] as string;
    expect(subjectOf(fired)).toBe(`[tinytrack] Alert firing: ${name} (${checked})`);
    expect(fired).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;errors&quot;');
    expect(fired).not.toContain('<script>alert(1)</script> &amp;');
    expect(fired).toContain('75 %');

    // A minute later the same requests are in the window: still firing, no mail.
    expect((await check(new Date(minute + 60_000))).fired).toBe(0);
    expect(mailsTo()).toHaveLength(1);

    // Five minutes on, only good requests are in the window: resolved, one mail, once.
    await requests(minute + 3 * 60_000, [200, 200]);
    const [c, d] = await Promise.all([check(new Date(minute + 5 * 60_000)), check(new Date(minute + 5 * 60_000))]);
    expect(c.resolved + d.resolved).toBe(1);
    await check(new Date(minute + 5 * 60_000));
    const mails = mailsTo();
    expect(mails).toHaveLength(2);
    expect(subjectOf(mails[1] as string)).toBe(`[tinytrack] Alert resolved: ${name} (${checked})`);

    const view = (await svc.req('GET', `/api/sites/${checked}/alerts`, { token: owner })).json.alerts.find((r: { id: string }) => r.id === created.id);
    expect(view).toMatchObject({ state: 'ok', last_changed_at: new Date(minute + 5 * 60_000).toISOString(), last_evaluated_at: new Date(minute + 5 * 60_000).toISOString() });
    expect(view.history).toEqual([
      { at: new Date(minute + 5 * 60_000).toISOString(), state: 'ok', value: 0 },
      { at: new Date(minute).toISOString(), state: 'firing', value: 0.75 },
    ]);
  });

  it('a disabled rule is not checked; web metrics read the traffic', async () => {
    const web = await svc.site(owner, { prefix: 'web-checked' });
    const quiet = (await svc.req('POST', `/api/sites/${web}/alerts`, { token: owner, body: rule({ name: 'no traffic', metric: 'pageviews', comparator: '<', threshold: 1, window_minutes: 60 }) })).json;
    const paused = (await svc.req('POST', `/api/sites/${web}/alerts`, { token: owner, body: rule({ name: 'paused', metric: 'visitors', comparator: '<', threshold: 1, enabled: false }) })).json;
    const check = createAlertChecker({ ...svc.node.services, log });
    await check(new Date(Math.floor(Date.now() / 60_000) * 60_000));
    const rules = (await svc.req('GET', `/api/sites/${web}/alerts`, { token: owner })).json.alerts;
    expect(rules.find((r: { id: string }) => r.id === quiet.id)).toMatchObject({ state: 'firing', history: [{ state: 'firing', value: 0 }] });
    expect(rules.find((r: { id: string }) => r.id === paused.id)).toMatchObject({ state: 'ok', last_evaluated_at: null });
  });
});

describe('site delete', () => {
  it('removes the alert rules', async () => {
    const doomed = await svc.site(owner, { prefix: 'api-doomed', kind: 'api', verify: false });
    await svc.req('POST', `/api/sites/${doomed}/alerts`, { token: owner, body: rule() });
    expect((await svc.req('DELETE', `/api/sites/${doomed}`, { token: owner })).status).toBe(200);
    expect((await svc.req('POST', '/api/sites', { token: owner, body: { hostname: doomed, kind: 'api' } })).status).toBe(201);
    expect((await svc.req('GET', `/api/sites/${doomed}/alerts`, { token: owner })).json).toEqual({ alerts: [] });
    const enabled = await svc.node.services.registry.listEnabledAlertRules();
    expect(enabled.filter((r) => r.site === doomed)).toEqual([]);
  });
});
