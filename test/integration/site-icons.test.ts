/**
 * Site icons over HTTP with the real verifier: fetched from the page's icon
 * link when the site verifies, served with the site's read rules, looked for
 * again after a week, and gone with the site.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { IconFiles } from '#adapters/icon-files/icon-files.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { png } from '../support/png.ts';

let svc: TestService;
let token: string;
let assets: Server;
let assetOrigin: string;
const files = new Map<string, { type: string; body: Buffer }>();

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token('icon-owner');
  assets = createServer((req, res) => {
    const file = files.get(req.url ?? '');
    res.writeHead(file ? 200 : 404, { 'content-type': file?.type ?? 'text/plain' });
    res.end(file?.body ?? 'no');
  });
  await new Promise<void>((ok) => assets.listen(0, '127.0.0.1', () => ok()));
  assetOrigin = `http://127.0.0.1:${(assets.address() as AddressInfo).port}`;
});
afterAll(async () => {
  assets?.close();
  await svc?.stop();
});

/** A registered site whose home page has the script and `<link rel="icon" href=…>`, verified. */
async function siteWithIcon(href: string): Promise<string> {
  const hostname = await svc.site(token, { verify: false, prefix: 'icon' });
  svc.setPage(hostname, `<!doctype html><html><head><link rel="icon" href="${href}"><script src="${svc.url}/latest.js"></script></head><body>hi</body></html>`);
  const v = await svc.req('POST', `/api/sites/${hostname}/verify`, { token });
  expect(v.json.verification.ok).toBe(true);
  return hostname;
}

/** The icon as the owner reads it, or with `as` (null: anonymously). */
const icon = (hostname: string, as: string | null = token) => svc.req('GET', `/api/sites/${hostname}/icon`, { token: as ?? undefined });
const bytes = async (hostname: string) => Buffer.from(await (await fetch(`${svc.url}/api/sites/${hostname}/icon`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer());

describe('site icons', () => {
  it('serves the icon the page links to after verification, and 404 once the site is deleted', async () => {
    const image = png(16);
    files.set('/a.png', { type: 'image/png', body: image });
    const hostname = await siteWithIcon(`${assetOrigin}/a.png`);
    const r = await icon(hostname);
    expect([r.status, r.headers.get('content-type'), r.headers.get('x-content-type-options')]).toEqual([200, 'image/png', 'nosniff']);
    expect((await bytes(hostname)).equals(image)).toBe(true);
    const file = join(svc.dataDir, 'icons', `${hostname}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await svc.req('DELETE', `/api/sites/${hostname}`, { token })).status).toBe(200);
    const gone = await icon(hostname);
    expect([gone.status, gone.json]).toEqual([404, { error: 'unknown site' }]);
    expect(existsSync(file)).toBe(false);
  });

  it('deletes the site when its icon cannot be removed: 200, and the site is gone', async () => {
    files.set('/c.png', { type: 'image/png', body: png(12) });
    const hostname = await siteWithIcon(`${assetOrigin}/c.png`);
    // A directory where the icon file was: the real store's removal fails (as root too).
    const file = join(svc.dataDir, 'icons', `${hostname}.json`);
    rmSync(file);
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    const deleted = await svc.req('DELETE', `/api/sites/${hostname}`, { token });
    expect([deleted.status, deleted.json]).toEqual([200, { deleted: hostname }]);
    expect((await svc.req('GET', `/api/sites/${hostname}`, { token })).status).toBe(404);
    rmSync(file, { recursive: true });
  });

  it("follows the site's read rules: anonymous only once the site is public", async () => {
    files.set('/b.png', { type: 'image/png', body: png(8) });
    const hostname = await siteWithIcon(`${assetOrigin}/b.png`);
    expect((await icon(hostname, null)).status).toBe(404);
    expect((await icon(hostname, await svc.token('someone-else'))).status).toBe(404);
    await svc.req('PATCH', `/api/sites/${hostname}`, { token, body: { is_public: true } });
    const anonymous = await icon(hostname, null);
    expect([anonymous.status, anonymous.headers.get('content-type')]).toEqual([200, 'image/png']);
  });

  it('keeps only real images within 64 KiB: an SVG, a page and an oversized PNG give the placeholder', async () => {
    files.set('/evil.svg', { type: 'image/svg+xml', body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') });
    files.set('/page.png', { type: 'image/png', body: Buffer.from('<html>not an image</html>') });
    files.set('/huge.png', { type: 'image/png', body: Buffer.concat([png(4), Buffer.alloc(64 * 1024)]) });
    for (const path of ['/evil.svg', '/page.png', '/huge.png']) {
      const hostname = await siteWithIcon(`${assetOrigin}${path}`);
      const r = await icon(hostname);
      expect([path, r.status, r.headers.get('content-type')]).toEqual([path, 200, 'image/svg+xml']);
      expect(r.text).not.toContain('script');
      expect(r.text).toContain('<rect');
    }
  });

  it('looks again once the stored icon is a week old', async () => {
    files.set('/c.png', { type: 'image/png', body: png(16) });
    const hostname = await siteWithIcon(`${assetOrigin}/c.png`);
    expect((await bytes(hostname)).equals(png(16))).toBe(true);
    files.set('/c.png', { type: 'image/png', body: png(32) });
    // Six days on, the stored icon is still served; eight days on, the new one is fetched.
    const store = new IconFiles(svc.dataDir);
    const stored = (await store.get(hostname))!;
    await store.put(hostname, { ...stored, checkedAt: new Date(Date.now() - 6 * 86_400_000).toISOString() });
    expect((await bytes(hostname)).equals(png(16))).toBe(true);
    await store.put(hostname, { ...stored, checkedAt: new Date(Date.now() - 8 * 86_400_000).toISOString() });
    expect((await bytes(hostname)).equals(png(32))).toBe(true);
  });

  it('an unverified site has no icon looked for: the placeholder', async () => {
    const hostname = await svc.site(token, { verify: false, prefix: 'icon-pending' });
    const r = await icon(hostname);
    expect([r.status, r.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(existsSync(join(svc.dataDir, 'icons', `${hostname}.json`))).toBe(false);
  });
});
