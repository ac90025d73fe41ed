/**
 * E-mail digests over HTTP (issue 38): the real handlers on dynalite and
 * DuckDB, mail in the local outbox (DATA_DIR/outbox/), read back. Site
 * reports with the access matrix, report defaults followed by the reports
 * that inherit them, the workspace digest and its preview, test sends,
 * unsubscribe links (valid, tampered, used again) and the site delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextSendAt } from '#domain/digests/schedule.ts';
import { registrationKey } from '#domain/registration.ts';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { row } from '../contract/report-store.contract.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { readOutbox, subjectOf } from '../support/outbox.ts';

let svc: TestService;
let owner: string;
let other: string;
const OWNER = 'digest-owner';

const statusAndError = (r: { status: number; json: { error?: string } }) => [r.status, r.json?.error];
const reports = (h: string) => `/api/sites/${h}/reports`;
const outbox = () => readOutbox(svc.dataDir);
const mailsTo = (address: string) => outbox().filter((m) => new RegExp(`^To: ${address.replace('.', '\\.')}$`, 'm').test(m));
/** The unsubscribe link's token in a mail (the plain text's line). */
const tokenIn = (mail: string) => /Unsubscribe: \S+\?token=([A-Za-z0-9_.-]+)/.exec(mail)?.[1] as string;

beforeAll(async () => {
  svc = await startTestService();
  owner = await mintIdToken(loadIssuerKey(svc.dataDir), OWNER, { email: 'owner@example.com' });
  other = await svc.token('digest-stranger');
});
afterAll(() => svc.stop());

describe('site e-mail reports', () => {
  it('are created with the defaults and the ID token’s e-mail, listed, changed (null follows the default again), paused and deleted', async () => {
    const h = await svc.site(owner, { prefix: 'digest-crud', verify: false });
    const created = await svc.req('POST', reports(h), { token: owner, body: {} });
    const monday = new Date(nextSendAt('weekly', 'UTC', Date.parse(created.json.created_at))).toISOString();
    expect([created.status, created.json]).toEqual([
      201,
      {
        id: expect.any(String),
        frequency: 'weekly',
        recipients: ['owner@example.com'],
        tz: 'UTC',
        inherits: ['frequency', 'tz'],
        enabled: true,
        last_sent_at: null,
        next_send_at: monday,
        last_error: null,
        created_at: expect.any(String),
      },
    ]);
    const one = `${reports(h)}/${created.json.id}`;
    const daily = await svc.req('PATCH', one, { token: owner, body: { frequency: 'daily', tz: 'europe/amsterdam', recipients: ['a@example.com', ' a@example.com', 'b@example.com'] } });
    expect(daily.json).toMatchObject({ frequency: 'daily', tz: 'Europe/Amsterdam', recipients: ['a@example.com', 'b@example.com'], inherits: [] });
    expect(new Date(daily.json.next_send_at).toISOString()).toBe(new Date(nextSendAt('daily', 'Europe/Amsterdam', Date.now() - 60_000)).toISOString());
    const back = await svc.req('PATCH', one, { token: owner, body: { frequency: null } });
    expect(back.json).toMatchObject({ frequency: 'weekly', inherits: ['frequency'] });
    const paused = await svc.req('PATCH', one, { token: owner, body: { enabled: false } });
    expect(paused.json).toMatchObject({ enabled: false, next_send_at: null });
    expect((await svc.req('GET', reports(h), { token: owner })).json).toEqual({ reports: [paused.json] });
    expect((await svc.req('DELETE', one, { token: owner })).json).toEqual({ deleted: created.json.id });
    expect(statusAndError(await svc.req('DELETE', one, { token: owner }))).toEqual([404, 'unknown e-mail report']);
    expect(statusAndError(await svc.req('PATCH', `${reports(h)}/not-a-uuid`, { token: owner, body: {} }))).toEqual([404, 'unknown e-mail report']);
  });

  it('refuse bad settings with their texts, a key’s report without recipients anywhere, and an 11th', async () => {
    const h = await svc.site(owner, { prefix: 'digest-bad', verify: false });
    const bad = async (body: unknown, token = owner) => statusAndError(await svc.req('POST', reports(h), { token, body }));
    expect(await bad('nope')).toEqual([400, 'invalid e-mail report settings']);
    expect(await bad({ frequency: 'hourly' })).toEqual([400, 'frequency must be daily, weekly or monthly']);
    expect(await bad({ tz: 'Mars/Olympus' })).toEqual([400, 'tz must be an IANA time zone name']);
    expect(await bad({ tz: '+02:00' })).toEqual([400, 'tz must be an IANA time zone name']);
    for (const recipients of [[], ['not an address'], Array.from({ length: 11 }, (_, i) => `r${i}@example.com`), 'a@example.com']) {
      expect(await bad({ recipients })).toEqual([400, 'recipients must be 1 to 10 e-mail addresses']);
    }
    expect(await bad({ enabled: 'yes' })).toEqual([400, 'enabled must be true or false']);
    const { key } = await svc.key(owner, ['read', 'manage']);
    expect(await bad({}, key)).toEqual([400, 'recipients are required: give them here or in the report defaults']);
    for (let i = 0; i < 10; i++) expect((await svc.req('POST', reports(h), { token: owner, body: { frequency: 'monthly' } })).status).toBe(201);
    expect(await bad({})).toEqual([400, 'e-mail report limit reached']);
  });

  it('answer only the owner: reads with `read`, changes with `manage`, test sends with the ID token; others and anonymous readers get 404, anonymous changes 401', async () => {
    const h = await svc.site(owner, { prefix: 'digest-access' });
    expect((await svc.req('PATCH', `/api/sites/${h}`, { token: owner, body: { is_public: true } })).status).toBe(200);
    const created = (await svc.req('POST', reports(h), { token: owner, body: { recipients: ['team@example.com'] } })).json;
    const one = `${reports(h)}/${created.id}`;
    const read = (await svc.key(owner, ['read'])).key;
    const manage = (await svc.key(owner, ['read', 'manage'])).key;
    expect(statusAndError(await svc.req('GET', reports(h)))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('GET', reports(h), { token: other }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('POST', reports(h), { body: {} }))).toEqual([401, 'sign in required']);
    expect(statusAndError(await svc.req('POST', reports(h), { token: other, body: {} }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('PATCH', one, { token: other, body: {} }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('DELETE', one, { token: other }))).toEqual([404, 'unknown site']);
    expect((await svc.req('GET', reports(h), { token: read })).json.reports).toEqual([created]);
    expect(statusAndError(await svc.req('POST', reports(h), { token: read, body: { recipients: ['x@example.com'] } }))).toEqual([403, 'scope manage required']);
    expect(statusAndError(await svc.req('PATCH', one, { token: read, body: {} }))).toEqual([403, 'scope manage required']);
    expect((await svc.req('POST', reports(h), { token: manage, body: { recipients: ['x@example.com'] } })).status).toBe(201);
    expect((await svc.req('PATCH', one, { token: manage, body: { frequency: 'daily' } })).json.frequency).toBe('daily');
    for (const token of [read, manage]) expect(statusAndError(await svc.req('POST', `${one}/test`, { token }))).toEqual([403, 'management keys cannot call this endpoint']);
    expect(statusAndError(await svc.req('POST', `${one}/test`, { token: other }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('POST', `${one}/test`))).toEqual([401, 'sign in required']);
    // The account's settings: keys work (but not for test sends), anonymous callers sign in.
    expect((await svc.req('GET', '/api/reports/defaults', { token: read })).status).toBe(200);
    expect(statusAndError(await svc.req('PUT', '/api/reports/defaults', { token: read, body: {} }))).toEqual([403, 'scope manage required']);
    expect((await svc.req('GET', '/api/reports/workspace', { token: read })).status).toBe(200);
    expect((await svc.req('GET', '/api/reports/workspace/preview', { token: read })).status).toBe(200);
    expect(statusAndError(await svc.req('PUT', '/api/reports/workspace', { token: read, body: {} }))).toEqual([403, 'scope manage required']);
    expect(statusAndError(await svc.req('POST', '/api/reports/workspace/test', { token: manage }))).toEqual([403, 'management keys cannot call this endpoint']);
    for (const [method, path] of [['GET', '/api/reports/defaults'], ['PUT', '/api/reports/defaults'], ['GET', '/api/reports/workspace'], ['GET', '/api/reports/workspace/preview'], ['POST', '/api/reports/workspace/test']]) {
      expect(statusAndError(await svc.req(method as string, path as string, method === 'GET' ? {} : { body: {} }))).toEqual([401, 'sign in required']);
    }
  });
});

describe('report defaults', () => {
  it('start weekly in UTC to nobody, change with a key, and every report that inherits a field follows it', async () => {
    const uid = 'digest-defaults';
    const token = await mintIdToken(loadIssuerKey(svc.dataDir), uid, { email: 'd@example.com' });
    expect((await svc.req('GET', '/api/reports/defaults', { token })).json).toEqual({ frequency: 'weekly', tz: 'UTC', recipients: [] });
    const h = await svc.site(token, { prefix: 'digest-defaults', verify: false });
    const inheriting = (await svc.req('POST', reports(h), { token, body: {} })).json;
    const own = (await svc.req('POST', reports(h), { token, body: { frequency: 'monthly', tz: 'Asia/Tokyo' } })).json;
    const { key } = await svc.key(token, ['read', 'manage']);
    expect(statusAndError(await svc.req('PUT', '/api/reports/defaults', { token: key, body: { frequency: 'fortnightly' } }))).toEqual([400, 'frequency must be daily, weekly or monthly']);
    const put = await svc.req('PUT', '/api/reports/defaults', { token: key, body: { frequency: 'daily', tz: 'America/New_York', recipients: ['team@example.com'] } });
    expect(put.json).toEqual({ frequency: 'daily', tz: 'America/New_York', recipients: ['team@example.com'] });
    const after = (await svc.req('GET', reports(h), { token })).json.reports;
    const nyDaily = new Date(nextSendAt('daily', 'America/New_York', Date.now() - 60_000)).toISOString();
    expect(after.find((r: { id: string }) => r.id === inheriting.id)).toMatchObject({ frequency: 'daily', tz: 'America/New_York', recipients: ['d@example.com'], next_send_at: nyDaily });
    expect(after.find((r: { id: string }) => r.id === own.id)).toMatchObject({ frequency: 'monthly', tz: 'Asia/Tokyo', next_send_at: own.next_send_at });
    // Created now with nothing of its own, a report takes all three from the defaults.
    expect((await svc.req('POST', reports(h), { token: key, body: {} })).json).toMatchObject({ frequency: 'daily', tz: 'America/New_York', recipients: ['team@example.com'], inherits: ['frequency', 'tz', 'recipients'] });
    // Fields left out keep their value.
    expect((await svc.req('PUT', '/api/reports/defaults', { token: key, body: { tz: 'UTC' } })).json).toEqual({ frequency: 'daily', tz: 'UTC', recipients: ['team@example.com'] });
  });
});

/** Seeds pageviews of `h` (owner OWNER) on the day before `beforeMs`'s UTC midnight: what last period's digests show. */
async function seedYesterday(h: string, paths: string[]) {
  const yesterday = Math.floor(Date.now() / 86_400_000) * 86_400 - 86_400 + 3600;
  const registration = registrationKey(OWNER, h);
  await svc.node.runtime.events.saveEvents(paths.map((path, i) => ({ ...row(h, yesterday + i, { path, visitor: `v${i}` }), registration })));
}

describe('test sends and unsubscribe links', () => {
  it('mail each recipient its own copy with its own link; the link asks first, removes that recipient only, and finds it gone when used again; a changed link is refused', async () => {
    const h = await svc.site(owner, { prefix: 'digest-unsub' });
    await seedYesterday(h, ['/', '/pricing', '/<script>alert(1)</script>']);
    const created = (await svc.req('POST', reports(h), { token: owner, body: { frequency: 'daily', recipients: ['ann@example.com', 'bob@example.com'] } })).json;
    const sent = await svc.req('POST', `${reports(h)}/${created.id}/test`, { token: owner });
    expect([sent.status, sent.json]).toEqual([200, { sent: true, recipients: ['ann@example.com', 'bob@example.com'] }]);
    const [ann, bob] = [mailsTo('ann@example.com'), mailsTo('bob@example.com')];
    expect([ann.length, bob.length]).toEqual([1, 1]);
    const mail = ann[0] as string;
    expect(subjectOf(mail)).toMatch(new RegExp(`^\\[tinytrack\\] Daily report: ${h.replace(/\./g, '\\.')}, \\w{3}, \\d{1,2} \\w{3} \\d{4}$`));
    expect(mail).toContain('Pageviews: 3');
    expect(mail).toContain('  /<script>alert(1)</script>: 1');
    expect(mail).toContain('/&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail).not.toMatch(/<td[^>]*><script>/);
    const [annToken, bobToken] = [tokenIn(mail), tokenIn(bob[0] as string)];
    expect(annToken).not.toBe(bobToken);

    const link = `/api/reports/unsubscribe?token=${annToken}`;
    const confirm = await svc.req('GET', link);
    expect([confirm.status, confirm.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(confirm.text).toContain('ann@example.com will get no more of these e-mails');
    expect(confirm.text).toContain('<form method="post"');
    // Opening the link (a mail scanner does) removes nobody.
    expect((await svc.req('GET', reports(h), { token: owner })).json.reports[0].recipients).toEqual(['ann@example.com', 'bob@example.com']);
    const done = await svc.req('POST', link);
    expect([done.status, done.text.includes('You are unsubscribed')]).toEqual([200, true]);
    expect((await svc.req('GET', reports(h), { token: owner })).json.reports[0]).toMatchObject({ recipients: ['bob@example.com'], enabled: true });
    // Used again: nothing more to remove.
    for (const method of ['GET', 'POST']) expect(await svc.req(method, link).then((r) => [r.status, r.text.includes('You are unsubscribed')])).toEqual([200, true]);
    expect((await svc.req('GET', reports(h), { token: owner })).json.reports[0].recipients).toEqual(['bob@example.com']);
    // A link changed anywhere is no link.
    const [body, signature] = bobToken.split('.') as [string, string];
    for (const bad of [`${body}.${signature.slice(1)}`, `${body.slice(1)}.${signature}`, '', 'x']) {
      const r = await svc.req('POST', `/api/reports/unsubscribe?token=${bad}`);
      expect([r.status, r.text.includes('This unsubscribe link is not valid')]).toEqual([400, true]);
    }
    expect((await svc.req('GET', reports(h), { token: owner })).json.reports[0].recipients).toEqual(['bob@example.com']);
    // The last recipient gone, the report stops.
    await svc.req('POST', `/api/reports/unsubscribe?token=${bobToken}`);
    expect((await svc.req('GET', reports(h), { token: owner })).json.reports[0]).toMatchObject({ recipients: [], enabled: false, next_send_at: null });
  });
});

describe('digest content', () => {
  it('adds goal conversions where the site has goals, and requests, error rate and p95 for an API site', async () => {
    const web = await svc.site(owner, { prefix: 'digest-goals' });
    await seedYesterday(web, ['/', '/pricing', '/pricing']);
    await svc.req('POST', `/api/sites/${web}/goals`, { token: owner, body: { type: 'page', match: '/pricing', name: 'Saw <pricing>' } });
    const report = (await svc.req('POST', reports(web), { token: owner, body: { frequency: 'daily', recipients: ['goals@example.com'] } })).json;
    await svc.req('POST', `${reports(web)}/${report.id}/test`, { token: owner });
    const goals = mailsTo('goals@example.com')[0] as string;
    expect(goals).toContain('Goal conversions:\n  Saw <pricing> (66.67 %): 2');
    expect(goals).toContain('Saw &lt;pricing&gt; (66.67 %)');
    expect(goals).not.toContain('API requests');

    const api = await svc.site(owner, { prefix: 'digest-api', kind: 'api', verify: false });
    const yesterday = (Math.floor(Date.now() / 86_400_000) - 1) * 86_400_000 + 3_600_000;
    const registration = registrationKey(OWNER, api);
    await svc.node.runtime.adapters.apiRequests.saveApiRequests(
      [200, 200, 200, 503].map((status, i) => ({ site: api, registration, ts: yesterday + i, id: `r${i}`, method: 'GET', route: '/x', status, duration_ms: 100 * (i + 1), bytes_in: null, bytes_out: null, consumer: null })),
    );
    const apiReport = (await svc.req('POST', reports(api), { token: owner, body: { frequency: 'daily', recipients: ['api@example.com'] } })).json;
    await svc.req('POST', `${reports(api)}/${apiReport.id}/test`, { token: owner });
    const mail = mailsTo('api@example.com')[0] as string;
    expect(mail).toContain('API requests: 4 (new)');
    expect(mail).toContain('API error rate: 25.00 %');
    expect(mail).toContain('API p95 latency: 388 ms');
  });
});

describe('the workspace digest', () => {
  it('is off until enabled with recipients, lists only the account’s sites, previews its last complete period, sends a test, and loses a deleted site', async () => {
    const [a, b] = [await svc.site(owner, { prefix: 'digest-ws-a' }), await svc.site(owner, { prefix: 'digest-ws-b' })];
    await seedYesterday(a, ['/a1', '/a2']);
    expect((await svc.req('GET', '/api/reports/workspace', { token: owner })).json).toEqual({
      frequency: 'weekly', tz: 'UTC', recipients: [], sites: 'all', enabled: false, last_sent_at: null, next_send_at: null, last_error: null,
    });
    const put = (body: unknown) => svc.req('PUT', '/api/reports/workspace', { token: owner, body });
    expect(statusAndError(await put({ enabled: true }))).toEqual([400, 'recipients are required: give them here or in the report defaults']);
    for (const sites of [['nope.example'], 'some', [42]]) expect(statusAndError(await put({ sites }))).toEqual([400, 'sites must be "all" or a list of hostnames of your sites']);
    const enabled = await put({ enabled: true, frequency: 'daily', tz: 'Europe/Amsterdam', recipients: ['lead@example.com'], sites: [a.toUpperCase(), b] });
    expect(enabled.json).toMatchObject({ enabled: true, sites: [a, b], next_send_at: new Date(nextSendAt('daily', 'Europe/Amsterdam', Date.now() - 60_000)).toISOString() });
    const preview = (await svc.req('GET', '/api/reports/workspace/preview', { token: owner })).json;
    expect(preview.subject).toMatch(/^\[tinytrack\] Daily digest: 2 sites, /);
    expect(preview.text).toContain(`${a}\n`);
    expect(preview.text).toContain('  /a1: 1');
    expect(preview.html).toContain(`<h2 style="font-size:16px;margin:24px 0 8px">${b}</h2>`);
    const test = await svc.req('POST', '/api/reports/workspace/test', { token: owner });
    expect(test.json).toEqual({ sent: true, recipients: ['lead@example.com'] });
    expect(subjectOf(mailsTo('lead@example.com')[0] as string)).toBe(preview.subject);
    expect((await svc.req('DELETE', `/api/sites/${a}`, { token: owner })).status).toBe(200);
    expect((await svc.req('GET', '/api/reports/workspace', { token: owner })).json.sites).toEqual([b]);
  });
});

describe('site delete', () => {
  it('removes its e-mail reports', async () => {
    const h = await svc.site(owner, { prefix: 'digest-doomed', verify: false });
    await svc.req('POST', reports(h), { token: owner, body: {} });
    expect((await svc.req('DELETE', `/api/sites/${h}`, { token: owner })).status).toBe(200);
    expect((await svc.req('POST', '/api/sites', { token: owner, body: { hostname: h } })).status).toBe(201);
    expect((await svc.req('GET', reports(h), { token: owner })).json).toEqual({ reports: [] });
    const due = await svc.node.services.registry.digests.dueDigests('9999-01-01T00:00:00.000Z');
    expect(due.filter((d) => d.kind === 'site' && d.report.site === h)).toEqual([]);
  });
});
