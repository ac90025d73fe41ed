/**
 * Where `/r` may send a browser (domain/ingest/outbound.ts): a table of
 * targets for site `shop.example` listing `pay.example` (issue 39's list and
 * more). None may leave the site, its subdomains and its list.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REDIRECT_HOSTS, parseRedirectHosts, redirectTarget } from '#domain/ingest/outbound.ts';
import { SETTINGS_ERRORS } from '#domain/site.ts';

const SITE = 'shop.example';
const LISTED = ['pay.example'];

const REFUSED: [string, string][] = [
  ['protocol-relative', '//evil.example/'],
  ['scheme without slashes', 'https:evil.example'],
  ['scheme with one slash', 'https:/evil.example'],
  ['backslash after the path slash', '/\\evil.example'],
  ['backslash in the authority', 'https:\\\\evil.example'],
  ['backslash anywhere', 'https://shop.example/a\\b'],
  ['credentials naming the site', 'https://shop.example@evil.example/'],
  ['credentials with a password', 'https://shop.example:pw@evil.example/'],
  ['another host', 'https://evil.example/'],
  ['a host ending like the site', 'https://evilshop.example/'],
  ['the site as a subdomain of another', 'https://shop.example.evil.example/'],
  ['upper case scheme and host', 'HTTPS://EVIL.EXAMPLE/'],
  ['mixed case', 'hTtPs://eViL.example/'],
  ['percent-encoded dot', 'https://evil%2Eexample/'],
  ['percent-encoded at', 'https://shop.example%40evil.example/'],
  ['percent-encoded slash', 'https://evil.example%2F.shop.example/'],
  ['IDN look-alike (Cyrillic а)', 'https://shоp.example/'],
  ['IDN look-alike in punycode', 'https://xn--shp-qdd.example/'],
  ['javascript', 'javascript:alert(1)'],
  ['JavaScript, mixed case', 'JaVaScRiPt:alert(1)'],
  ['data', 'data:text/html,<script>alert(1)</script>'],
  ['ftp', 'ftp://shop.example/'],
  ['file', 'file:///etc/passwd'],
  ['a relative path', '/pricing'],
  ['CR LF header injection', 'https://shop.example/\r\nSet-Cookie: a=b'],
  ['LF alone', 'https://shop.example/\nx'],
  ['NUL', 'https://shop.example/\u0000'],
  ['tab', 'https://shop.example/\tx'],
  ['leading space', ' https://shop.example/'],
  ['over 2,048 bytes', `https://shop.example/${'a'.repeat(2048)}`],
  ['over 2,048 bytes in UTF-8, under in characters', `https://shop.example/${'é'.repeat(1020)}`],
  ['empty host', 'https:///'],
  ['an unlisted IP address', 'https://127.0.0.1/'],
];

const ALLOWED: [string, string, string][] = [
  ['the site', 'https://shop.example/thanks?x=1#top', 'https://shop.example/thanks?x=1#top'],
  ['a subdomain', 'https://docs.shop.example/a', 'https://docs.shop.example/a'],
  ['a deeper subdomain over http', 'http://a.b.shop.example/', 'http://a.b.shop.example/'],
  ['a listed host', 'https://pay.example/checkout', 'https://pay.example/checkout'],
  ['upper case, as parsed', 'HTTPS://Shop.Example/X', 'https://shop.example/X'],
  ['a port', 'https://shop.example:8443/', 'https://shop.example:8443/'],
  ['a query with an encoded URL', 'https://shop.example/?next=https%3A%2F%2Fevil.example', 'https://shop.example/?next=https%3A%2F%2Fevil.example'],
];

describe('the outbound redirect', () => {
  it.each(REFUSED)('refuses %s', (_name, raw) => {
    expect(redirectTarget(raw, SITE, LISTED)).toEqual({ ok: false, error: 'redirect target not allowed' });
  });

  it.each(ALLOWED)('follows %s', (_name, raw, url) => {
    const target = redirectTarget(raw, SITE, LISTED);
    expect(target.ok && [target.url, target.host]).toEqual([url, new URL(url).hostname]);
  });

  it('needs a target, and follows only the site’s own host when it lists none', () => {
    expect(redirectTarget(undefined, SITE, LISTED)).toEqual({ ok: false, error: 'u required' });
    expect(redirectTarget('', SITE, LISTED)).toEqual({ ok: false, error: 'u required' });
    expect(redirectTarget('https://pay.example/', SITE, []).ok).toBe(false);
  });

  it('writes no Location that holds a character outside the URL’s own serialization', () => {
    for (const [, raw] of ALLOWED) {
      const target = redirectTarget(raw, SITE, LISTED);
      expect(target.ok && /^[\x21-\x7e]+$/.test(target.url)).toBe(true);
    }
  });
});

describe('redirect_hosts', () => {
  it('are normalized as registration normalizes hostnames, each once, at most 20', () => {
    expect(parseRedirectHosts(['Pay.Example', 'https://pay.example/x', 'bücher.example'])).toEqual(['pay.example', 'xn--bcher-kva.example']);
    expect(parseRedirectHosts([])).toEqual([]);
    expect(parseRedirectHosts(Array.from({ length: MAX_REDIRECT_HOSTS + 1 }, (_, i) => `h${i}.example`))).toBeNull();
    for (const bad of ['pay.example', ['not a host'], [1], ['a@b.example']]) expect(parseRedirectHosts(bad)).toBeNull();
    // The settings' refusal names the limit this parser holds.
    expect(SETTINGS_ERRORS).toContain(`redirect_hosts must be a list of at most ${MAX_REDIRECT_HOSTS} hostnames`);
  });
});
