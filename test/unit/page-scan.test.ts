import { describe, expect, it } from 'vitest';
import { isTrackerScriptSrc, scanPage } from '#domain/page-scan.ts';

const TOKEN = 'tt_verify_3f9a1c';
const page = (head: string, body = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('scanPage script detection', () => {
  it.each([
    ['absolute', '<script async src="https://cdn.tinytrack.example/latest.js"></script>'],
    ['protocol-relative', '<script src="//cdn.tinytrack.example/latest.js"></script>'],
    ['root-relative', '<script src="/latest.js"></script>'],
    ['relative', '<script src="latest.js"></script>'],
    ['nested path', '<script defer src="/js/vendor/latest.js"></script>'],
    ['with query', '<script src="https://cdn.example/latest.js?v=3"></script>'],
    ['with hash', '<script src="/latest.js#x"></script>'],
    ['uppercase tag and attribute', '<SCRIPT SRC="/latest.js"></SCRIPT>'],
    ['unquoted attribute', '<script src=/latest.js></script>'],
    ['single quotes and whitespace', "<script src='  /latest.js  '></script>"],
    ['entity in query', '<script src="/latest.js?a=1&amp;b=2"></script>'],
    ['in body among others', '<script src="/app.js"></script><script src="https://x.example/latest.js"></script>'],
  ])('finds %s src', (_, tag) => {
    expect(scanPage(page(tag), TOKEN)).toEqual({ scriptFound: true, tokenFound: false });
    expect(scanPage(page('', tag), TOKEN).scriptFound).toBe(true);
  });

  it.each([
    ['source map', '<script src="/latest.js.map"></script>'],
    ['json', '<script src="/latest.json"></script>'],
    ['prefixed name', '<script src="/mylatest.js"></script>'],
    ['directory named latest.js', '<script src="/latest.js/app.js"></script>'],
    ['path only in query', '<script src="/app.js?f=/latest.js"></script>'],
    ['path only in hash', '<script src="/app.js#/latest.js"></script>'],
    ['inline script mentioning it', '<script>load("/latest.js")</script>'],
    ['no src', '<script data-src="/latest.js"></script>'],
    ['link, not script', '<link rel="preload" href="/latest.js" as="script">'],
    ['img src', '<img src="/latest.js">'],
    ['commented out', '<!-- <script src="/latest.js"></script> -->'],
    ['text only', '<p>add &lt;script src="/latest.js"&gt; to your page</p>'],
    ['data: URL', '<script src="data:text/javascript,/latest.js"></script>'],
    ['javascript: URL', '<script src="javascript:/latest.js"></script>'],
    ['different case', '<script src="/LATEST.JS"></script>'],
  ])('ignores %s', (_, tag) => {
    expect(scanPage(page(tag), TOKEN).scriptFound).toBe(false);
  });

  it('copes with malformed HTML', () => {
    expect(scanPage('<div><script src="/latest.js">', TOKEN).scriptFound).toBe(true);
    expect(scanPage('<<<>>><script src', TOKEN)).toEqual({ scriptFound: false, tokenFound: false });
    expect(scanPage('', TOKEN)).toEqual({ scriptFound: false, tokenFound: false });
  });

  it('reads src URLs by their path only', () => {
    expect(isTrackerScriptSrc('https://a.example/x/latest.js?y#z')).toBe(true);
    expect(isTrackerScriptSrc('http://[::1')).toBe(false);
    expect(isTrackerScriptSrc('')).toBe(false);
  });
});

describe('scanPage token detection', () => {
  it.each([
    ['meta tag', `<meta name="tinytrack-verify" content="${TOKEN}">`],
    ['comment', `<!-- ${TOKEN} -->`],
    ['text', `<title>x</title>`, `<p>${TOKEN}</p>`],
  ])('finds the token in a %s', (_, head, body = '') => {
    expect(scanPage(page(head, body), TOKEN)).toEqual({ scriptFound: false, tokenFound: true });
  });

  it('does not match another or a partial token', () => {
    expect(scanPage(page('', 'tt_verify_3f9a1'), TOKEN).tokenFound).toBe(false);
    expect(scanPage(page('', 'tt_verify_000000'), TOKEN).tokenFound).toBe(false);
  });

  it('never matches an empty token', () => {
    expect(scanPage(page('', 'anything'), '').tokenFound).toBe(false);
  });

  it('reports script and token together', () => {
    expect(scanPage(page('<script src="/latest.js"></script>', TOKEN), TOKEN)).toEqual({ scriptFound: true, tokenFound: true });
  });
});
