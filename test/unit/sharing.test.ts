/** Share links' pure parts (issue 40, part 5): slugs, requests, password hashes, read grants, embed origins. */
import { describe, expect, it } from 'vitest';
import { frameAncestors, parseEmbedOrigins } from '#domain/sharing/embed-origins.ts';
import { grantHolds, signGrant } from '#domain/sharing/grant.ts';
import { hashPassword, verifyPassword } from '#domain/sharing/password.ts';
import { guessWindow, isSlug, newSlug, parseShareLinkRequest, parseUnlockRequest, slugHash } from '#domain/sharing/share-link.ts';

describe('slugs', () => {
  it('are 24 base64url characters from 18 random bytes, each new, stored as their SHA-256', () => {
    const slugs = new Set(Array.from({ length: 200 }, newSlug));
    expect(slugs.size).toBe(200);
    for (const s of slugs) expect(isSlug(s)).toBe(true);
    expect(slugHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const bad of ['', 'x', 'A'.repeat(23), 'A'.repeat(25), `${'A'.repeat(23)}=`, `${'A'.repeat(23)}/`, 42, null]) expect(isSlug(bad)).toBe(false);
  });
});

describe('link requests', () => {
  it('take a trimmed label and an optional password, and refuse the rest with their texts', () => {
    expect(parseShareLinkRequest({})).toEqual({ ok: true, value: { label: '', password: null } });
    expect(parseShareLinkRequest({ label: ' a ', password: '' })).toEqual({ ok: true, value: { label: 'a', password: null } });
    expect(parseShareLinkRequest({ password: null })).toEqual({ ok: true, value: { label: '', password: null } });
    expect(parseShareLinkRequest({ password: '12345678' })).toEqual({ ok: true, value: { label: '', password: '12345678' } });
    expect(parseShareLinkRequest(undefined)).toEqual({ ok: false, error: 'invalid share link' });
    expect(parseShareLinkRequest([])).toEqual({ ok: false, error: 'invalid share link' });
    expect(parseShareLinkRequest({ label: 'x'.repeat(101) })).toEqual({ ok: false, error: 'label must be text of at most 100 characters' });
    for (const password of ['1234567', 'x'.repeat(201), 5, true]) expect(parseShareLinkRequest({ password })).toEqual({ ok: false, error: 'password must be 8 to 200 characters' });
    expect(parseUnlockRequest({ password: 'p' })).toEqual({ ok: true, password: 'p' });
    for (const body of [undefined, {}, { password: 1 }, { password: 'x'.repeat(201) }]) expect(parseUnlockRequest(body).ok).toBe(false);
  });

  it('count guesses in the minute they fall in', () => {
    expect(guessWindow(120_000)).toBe(120_000);
    expect(guessWindow(179_999)).toBe(120_000);
    expect(guessWindow(180_000)).toBe(180_000);
  });
});

describe('passwords', () => {
  it('are stored as scrypt with a random salt, and only the same password verifies', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horse', b)).toBe(true);
    expect(await verifyPassword('correct hors', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
    expect(await verifyPassword('correct horse', 'plain$text')).toBe(false);
    // One character of the hash changed (not the last: its low bits carry no data in base64url).
    const changed = `${a.slice(0, -10)}${a.at(-10) === 'x' ? 'y' : 'x'}${a.slice(-9)}`;
    expect(await verifyPassword('correct horse', changed)).toBe(false);
  });
});

describe('read grants', () => {
  const secret = Buffer.alloc(32, 7);
  it('hold for their link until they expire, and not when changed or signed by another secret', () => {
    const grant = signGrant(secret, 'link-1', 1000);
    expect(grantHolds(secret, grant, 'link-1', 999)).toBe(true);
    expect(grantHolds(secret, grant, 'link-1', 1000)).toBe(false);
    expect(grantHolds(secret, grant, 'link-2', 999)).toBe(false);
    expect(grantHolds(Buffer.alloc(32, 8), grant, 'link-1', 999)).toBe(false);
    const [id, , sig] = grant.split('.');
    expect(grantHolds(secret, `${id}.2000.${sig}`, 'link-1', 999)).toBe(false);
    for (const bad of [undefined, '', 'a.b', `${grant}.x`, `${id}.-1.${sig}`, `${id}.1e3.${sig}`, grant.slice(0, -1), 'x'.repeat(300)]) expect(grantHolds(secret, bad, 'link-1', 999)).toBe(false);
  });
});

describe('embed origins', () => {
  it('are at most 10 https (or loopback http) origins, normalized and each once', () => {
    expect(parseEmbedOrigins(['https://Blog.Example.com:443/', 'https://blog.example.com', 'https://bücher.example', 'http://127.0.0.1:5173', 'http://localhost'])).toEqual([
      'https://blog.example.com',
      'https://xn--bcher-kva.example',
      'http://127.0.0.1:5173',
      'http://localhost',
    ]);
    expect(parseEmbedOrigins([])).toEqual([]);
    for (const bad of ['https://a.example', ['http://a.example'], ['https://a.example/x'], ['https://a.example?q'], ['https://a.example#f'], ['*'], ['https://*.a.example'], ["'self'"], ['https://a.example b'], ['https://a;b'], ['https://u:p@a.example'], ['ftp://a.example'], ['javascript:alert(1)'], [1], Array.from({ length: 11 }, (_, i) => `https://s${i}.example`)]) {
      expect(parseEmbedOrigins(bad)).toBeNull();
    }
    expect(frameAncestors(['https://a.example', 'https://b.example'])).toBe('https://a.example https://b.example');
    expect(frameAncestors([])).toBe("'none'");
    expect(frameAncestors(null)).toBe("'none'");
  });
});
