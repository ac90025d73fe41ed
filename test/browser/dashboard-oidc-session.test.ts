/**
 * The dashboard's sessions over an issuer's refresh tokens (Cognito's hosted
 * sign-in: the stack's own dashboard, or the local server given
 * AUTH_DOMAIN_URL) in a real Chromium. A fake Cognito on this machine answers
 * /oauth2/authorize, /oauth2/token (code with PKCE, refresh_token),
 * /oauth2/revoke and /logout. The page sends the code to POST
 * /dashboard/login; the refresh token stays in an HttpOnly cookie; a second
 * tab and a restarted browser get their tokens from the session; signing out
 * in one tab revokes it and ends the other tab. The page's CSP is not
 * bypassed: it never connects to the issuer, it only navigates there.
 * API answers are played by the test (the fake's tokens carry no signature).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

// Browser globals in page.evaluate callbacks (the test's own tsconfig has no DOM library).
declare const document: { cookie: string };
declare const sessionStorage: Record<string, string>;
declare const localStorage: Record<string, string>;

const CLIENT = 'dashboard-client';
let issuer: Server;
let issuerUrl: string;
let svc: TestService;
let browser: Browser;
const fake = { authorizations: 0, challenge: '', live: new Set<string>(), revoked: [] as string[], issued: 0, loginForms: [] as URLSearchParams[] };

/** An unsigned JWT whose payload the page reads for its expiry. */
const idToken = (n: number) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'cognito-user', n, exp: Math.floor(Date.now() / 1000) + 900 })).toString('base64url')}.sig`;

beforeAll(async () => {
  issuer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuerUrl);
    if (url.pathname === '/oauth2/authorize') {
      fake.authorizations += 1;
      fake.challenge = url.searchParams.get('code_challenge') ?? '';
      const back = new URL(url.searchParams.get('redirect_uri') ?? '/');
      back.searchParams.set('code', 'the-code');
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return void res.writeHead(302, { location: back.toString() }).end();
    }
    if (url.pathname === '/logout') return void res.writeHead(302, { location: url.searchParams.get('logout_uri') ?? '/' }).end();
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const answer = (status: number, json: unknown = {}) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (form.get('client_id') !== CLIENT) return answer(400, { error: 'invalid_client' });
      if (url.pathname === '/oauth2/revoke') {
        fake.revoked.push(form.get('token') ?? '');
        fake.live.delete(form.get('token') ?? '');
        return answer(200);
      }
      fake.issued += 1;
      if (form.get('grant_type') === 'authorization_code') {
        fake.loginForms.push(form);
        const verifierMatches = createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === fake.challenge;
        if (!verifierMatches || form.get('code') !== 'the-code' || form.get('redirect_uri') !== `${svc.url}/login`) return answer(400, { error: 'invalid_grant' });
        const refresh = `refresh.${fake.issued}.${'r'.repeat(64)}`;
        fake.live.add(refresh);
        return answer(200, { id_token: idToken(fake.issued), refresh_token: refresh, expires_in: 900 });
      }
      if (form.get('grant_type') === 'refresh_token' && fake.live.has(form.get('refresh_token') ?? '')) return answer(200, { id_token: idToken(fake.issued), expires_in: 900 });
      return answer(400, { error: 'invalid_grant' });
    });
  });
  await new Promise<void>((ok) => issuer.listen(0, '127.0.0.1', () => ok()));
  issuerUrl = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
  svc = await startTestService({ AUTH_ISSUER: issuerUrl, AUTH_AUDIENCE: CLIENT, AUTH_DOMAIN_URL: issuerUrl });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  issuer?.close();
});

/** The bearer tokens the page sent to the API; the API's answers are an empty list. */
async function playApi(context: BrowserContext): Promise<string[]> {
  const bearers: string[] = [];
  await context.route('**/api/**', async (route) => {
    bearers.push((await route.request().headerValue('authorization')) ?? '');
    await route.fulfill({ status: 200, contentType: 'application/json', body: '[]' });
  });
  return bearers;
}

const subOf = (bearer: string | undefined) => (bearer ? (JSON.parse(Buffer.from(bearer.split('.')[1] ?? '', 'base64url').toString()) as { n: number }).n : null);

describe('dashboard sessions over the issuer’s refresh tokens', () => {
  let context: BrowserContext;
  let first: Page;
  let bearers: string[];

  it('signs in through the issuer with the code traded by the origin, and keeps the refresh token where no script reads it', async () => {
    context = await browser.newContext();
    bearers = await playApi(context);
    first = await context.newPage();
    await first.goto(`${svc.url}/`);
    await first.waitForURL((u) => u.pathname === '/login');
    await first.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => bearers.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(new URL(first.url()).pathname).toBe('/');
    expect(fake.authorizations).toBe(1);
    expect(fake.loginForms).toHaveLength(1);
    const refresh = [...fake.live][0]!;
    const cookie = (await context.cookies()).find((c) => c.name === 'tt_session');
    expect(cookie).toMatchObject({ value: refresh, path: '/dashboard', httpOnly: true, sameSite: 'Strict' });
    const visible = await first.evaluate(() => document.cookie + JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
    expect(visible).not.toContain(refresh);
    expect(bearers[0]).toMatch(/^Bearer /);
  }, 60_000);

  it('gives a second tab and a restarted browser their own tokens from the session, without the issuer’s sign-in', async () => {
    const before = bearers.length;
    const second = await context.newPage();
    await second.goto(`${svc.url}/`);
    await expect.poll(() => bearers.length, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(new URL(second.url()).pathname).toBe('/');
    expect(subOf(bearers.at(-1)?.slice(7))).not.toBe(subOf(bearers[0]?.slice(7)));

    const restarted = await browser.newContext({ storageState: await context.storageState() });
    const restartedBearers = await playApi(restarted);
    const page = await restarted.newPage();
    await page.goto(`${svc.url}/`);
    await expect.poll(() => restartedBearers.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(new URL(page.url()).pathname).toBe('/');
    await restarted.close();
    expect(fake.authorizations).toBe(1);
  }, 60_000);

  it('signing out in one tab revokes the refresh token at the issuer, clears the cookie and ends the other tab', async () => {
    const refresh = [...fake.live][0]!;
    const other = context.pages()[1]!;
    await first.getByRole('button', { name: 'Sign out' }).click();
    await first.waitForURL((u) => u.pathname === '/login' && u.origin === svc.url);
    await other.waitForURL((u) => u.pathname === '/login');
    expect(fake.revoked).toContain(refresh);
    expect((await context.cookies()).find((c) => c.name === 'tt_session')).toBeUndefined();
    // A new tab now finds no session: it stays on sign-in.
    const third = await context.newPage();
    await third.goto(`${svc.url}/`);
    await third.waitForURL((u) => u.pathname === '/login');
    await third.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  }, 60_000);
});
