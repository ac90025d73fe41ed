import { describe, expect, it } from 'vitest';
import { judgeVerification, type PageOutcome } from '#domain/site-verification.ts';

const ORIGINS = ['https://t.tinytrack.example'];
const seen = (over: Partial<PageOutcome & { reachable: true }> = {}): PageOutcome => ({
  reachable: true,
  scriptFound: false,
  proxiedScripts: [],
  proxiedMismatch: null,
  tokenFound: false,
  foreignScript: null,
  tokenMisplaced: false,
  iconUrls: [],
  ...over,
});

describe('judgeVerification', () => {
  it('passes by script, then token, then DNS', () => {
    expect(judgeVerification(seen({ scriptFound: true, tokenFound: true }), true, ORIGINS)).toMatchObject({ ok: true, method: 'script', reason: null });
    expect(judgeVerification(seen({ tokenFound: true }), true, ORIGINS)).toMatchObject({ ok: true, method: 'token', reason: null });
    expect(judgeVerification(seen(), true, ORIGINS)).toMatchObject({ ok: true, method: 'dns', reason: null });
    expect(judgeVerification({ reachable: false, offSite: false, error: 'HTTP 404' }, true, ORIGINS)).toMatchObject({ ok: true, method: 'dns' });
  });

  it('names an unreachable page with its error, and a redirect off the site apart', () => {
    expect(judgeVerification({ reachable: false, offSite: false, error: 'HTTP 503' }, false, ORIGINS)).toEqual({
      ok: false,
      method: null,
      reason: 'unreachable',
      detail: 'the page could not be read: HTTP 503',
    });
    expect(judgeVerification({ reachable: false, offSite: true, error: 'the page redirects to b.example' }, false, ORIGINS)).toEqual({
      ok: false,
      method: null,
      reason: 'redirect_off_site',
      detail: 'the page redirects to b.example',
    });
  });

  it('says which script is foreign and where this service serves its own', () => {
    const r = judgeVerification(seen({ foreignScript: 'https://scripts.simpleanalyticscdn.com/latest.js', tokenMisplaced: true }), false, ORIGINS);
    expect(r).toMatchObject({ ok: false, method: null, reason: 'foreign_script' });
    expect(r.detail).toContain('https://scripts.simpleanalyticscdn.com/latest.js');
    expect(r.detail).toContain('https://t.tinytrack.example/latest.js');
  });

  it('says when a /latest.js on the site is not this service\'s script, and why', () => {
    const mathjax = { script: 'https://shop.example/static/mathjax/latest.js', why: "it serves another script than this service's latest.js" };
    const r = judgeVerification(seen({ proxiedScripts: [mathjax.script], proxiedMismatch: mathjax, tokenMisplaced: true }), false, ORIGINS);
    expect(r).toEqual({
      ok: false,
      method: null,
      reason: 'foreign_script',
      detail:
        "the page loads https://shop.example/static/mathjax/latest.js from this site, but it is not this service's script (it serves another script than this service's latest.js); " +
        "load https://t.tinytrack.example/latest.js or a /latest.js on this site that passes this service's latest.js through unchanged",
    });
    // A proxied script that does serve the build is reported by the checker as the script found.
    expect(judgeVerification(seen({ scriptFound: true, proxiedScripts: [mathjax.script] }), false, ORIGINS)).toMatchObject({ ok: true, method: 'script' });
  });

  it('tells a misplaced token from a page with nothing on it', () => {
    expect(judgeVerification(seen({ tokenMisplaced: true }), false, ORIGINS)).toMatchObject({ ok: false, reason: 'token_missing' });
    expect(judgeVerification(seen({ tokenMisplaced: true }), false, ORIGINS).detail).toContain('<meta name="tinytrack-verification"');
    expect(judgeVerification(seen(), false, ORIGINS)).toMatchObject({ ok: false, reason: 'no_script' });
    expect(judgeVerification(seen(), false, []).detail).toBe('no <script> loads a proxied /latest.js on this site, and no verification token is on the page');
  });
});
