/**
 * The dashboard's sign-in with an OIDC issuer (AUTH_ISSUER; Cognito's hosted
 * sign-in on AWS) in a real Chromium: a fake issuer on this machine answers
 * discovery, the authorization redirect and the token endpoint, and checks
 * what a real one checks: the client, the redirect URI, and that the code
 * verifier hashes to the challenge (PKCE S256). Then the dashboard calls the
 * API with the ID token it got; a tampered `state` is refused. The fake
 * issuer is plain http, which the page's CSP (`connect-src 'self' https:`)
 * rightly blocks, so this browser context bypasses the CSP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Request } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const CLIENT = 'dashboard-client';
const ID_TOKEN = 'header.eyJzdWIiOiJvaWRjLXVzZXIiLCJleHAiOjQxMDI0NDQ4MDB9.signature';

let issuer: Server;
let issuerUrl: string;
let svc: TestService;
let browser: Browser;
/** What the token endpoint was sent, and whether its verifier matched the challenge of the authorization request. */
const seen: { challenge?: string; method?: string; redirectUri?: string; tokenForm?: URLSearchParams; verifierMatches?: boolean } = {};
let tamperState = false;

beforeAll(async () => {
  issuer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuerUrl);
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' };
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    if (url.pathname === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json', ...cors });
      return void res.end(JSON.stringify({ issuer: issuerUrl, authorization_endpoint: `${issuerUrl}/authorize`, token_endpoint: `${issuerUrl}/token` }));
    }
    if (url.pathname === '/authorize') {
      seen.challenge = url.searchParams.get('code_challenge') ?? undefined;
      seen.method = url.searchParams.get('code_challenge_method') ?? undefined;
      seen.redirectUri = url.searchParams.get('redirect_uri') ?? undefined;
      const back = new URL(seen.redirectUri ?? '/');
      back.searchParams.set('code', 'the-code');
      back.searchParams.set('state', tamperState ? 'not-the-state' : (url.searchParams.get('state') ?? ''));
      return void res.writeHead(302, { location: back.toString() }).end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.tokenForm = new URLSearchParams(body);
        const verifier = seen.tokenForm.get('code_verifier') ?? '';
        seen.verifierMatches = createHash('sha256').update(verifier).digest('base64url') === seen.challenge;
        const ok = seen.verifierMatches && seen.tokenForm.get('code') === 'the-code' && seen.tokenForm.get('client_id') === CLIENT;
        res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json', ...cors });
        res.end(JSON.stringify(ok ? { id_token: ID_TOKEN, token_type: 'Bearer' } : { error: 'invalid_grant' }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => issuer.listen(0, '127.0.0.1', () => ok()));
  issuerUrl = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
  svc = await startTestService({ AUTH_ISSUER: issuerUrl, AUTH_AUDIENCE: CLIENT });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  issuer?.close();
});

describe('dashboard sign-in with an OIDC issuer', () => {
  it('runs the authorization code flow with PKCE and calls the API with the ID token, from the page it started on', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const apiCalls: Request[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/')) apiCalls.push(r);
    });
    await page.goto(`${svc.url}/sites/a.example/retention`);
    await page.waitForURL((u) => u.pathname === '/login');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back on the page the owner asked for, which reads its site with the issuer's token (this
    // service cannot fetch the fake issuer's keys over http, so the API then answers 401).
    await expect.poll(() => apiCalls.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(new URL(apiCalls[0]!.url()).pathname).toBe('/api/sites/a.example');
    expect(await apiCalls[0]!.headerValue('authorization')).toBe(`Bearer ${ID_TOKEN}`);
    expect(seen.method).toBe('S256');
    expect(seen.redirectUri).toBe(`${svc.url}/login`);
    expect(seen.verifierMatches).toBe(true);
    expect(seen.tokenForm?.get('grant_type')).toBe('authorization_code');
    expect(seen.tokenForm?.get('redirect_uri')).toBe(`${svc.url}/login`);
    await context.close();
  }, 60_000);

  it('refuses an answer whose state is not the one this tab sent', async () => {
    tamperState = true;
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${svc.url}/login`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toContain('does not belong to this browser tab');
    expect(new URL(page.url()).search).toBe('');
    await context.close();
    tamperState = false;
  }, 60_000);
});
