import { describe, expect, it } from 'vitest';
import { buildTracker } from '#tracker/build.ts';
import { classifyScriptSrc, hostTwins, isTrackerBuild, scanPage, type ScanContext } from '#domain/page-scan.ts';

const TOKEN = 'tt_verify_3f9a1c';
const PUBLIC = 'https://t.tinytrack.example';
const ctx: ScanContext = {
  pageUrl: 'https://shop.example/',
  siteHosts: hostTwins('shop.example'),
  publicOrigins: [PUBLIC, 'http://127.0.0.1:8787'],
  verifyToken: TOKEN,
};
const page = (head: string, body = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const scan = (html: string, over: Partial<ScanContext> = {}) => scanPage(html, { ...ctx, ...over });
const NOTHING = { scriptFound: false, proxiedScripts: [], tokenFound: false, foreignScript: null, tokenMisplaced: false, iconUrls: ['https://shop.example/favicon.ico'] };

describe('scanPage: this service\'s script', () => {
  it.each([
    ['public origin', `<script async src="${PUBLIC}/latest.js"></script>`],
    ['public origin over http', '<script src="http://t.tinytrack.example/latest.js"></script>'],
    ['public origin, protocol-relative', '<script src="//t.tinytrack.example/latest.js"></script>'],
    ['the local default origin', '<script src="http://127.0.0.1:8787/latest.js"></script>'],
    ['public origin with query and hash', `<script src="${PUBLIC}/latest.js?v=3#x"></script>`],
    ['uppercase tag and attribute', `<SCRIPT SRC="${PUBLIC}/latest.js"></SCRIPT>`],
    ['unquoted attribute', `<script src=${PUBLIC}/latest.js></script>`],
    ['single quotes and whitespace', `<script src='  ${PUBLIC}/latest.js  '></script>`],
  ])('finds %s', (_, tag) => {
    expect(scan(page(tag))).toEqual({ ...NOTHING, scriptFound: true });
    expect(scan(page('', tag)).scriptFound).toBe(true);
  });

  it.each([
    ['root-relative', '<script src="/latest.js"></script>', 'https://shop.example/latest.js'],
    ['relative', '<script src="latest.js"></script>', 'https://shop.example/latest.js'],
    ['a nested path', '<script defer src="/js/vendor/latest.js"></script>', 'https://shop.example/js/vendor/latest.js'],
    ['absolute on the site', '<script src="https://shop.example/stats/latest.js"></script>', 'https://shop.example/stats/latest.js'],
    ['on the www twin', '<script src="https://www.shop.example/latest.js"></script>', 'https://www.shop.example/latest.js'],
    ['uppercase tag and attribute', '<SCRIPT SRC="/latest.js"></SCRIPT>', 'https://shop.example/latest.js'],
    ['unquoted attribute', '<script src=/latest.js></script>', 'https://shop.example/latest.js'],
    ['single quotes and whitespace', "<script src='  /latest.js  '></script>", 'https://shop.example/latest.js'],
    ['an entity in the query, which is kept', '<script src="/latest.js?a=1&amp;b=2#x"></script>', 'https://shop.example/latest.js?a=1&b=2'],
    ['a library of the same name (MathJax)', '<script src="/static/mathjax/latest.js"></script>', 'https://shop.example/static/mathjax/latest.js'],
  ])('does not take a /latest.js on the site, %s, for this service\'s script: it is a candidate whose body decides', (_, tag, script) => {
    expect(scan(page(tag))).toEqual({ ...NOTHING, proxiedScripts: [script] });
  });

  it('lists each candidate on the site once, in page order', () => {
    const html = page('<script src="/static/mathjax/latest.js"></script><script src="/latest.js"></script>', '<script src="https://shop.example/latest.js"></script>');
    expect(scan(html).proxiedScripts).toEqual(['https://shop.example/static/mathjax/latest.js', 'https://shop.example/latest.js']);
  });

  it('takes a public origin\'s path prefix into account', () => {
    const prefixed = { publicOrigins: ['https://cdn.example/analytics/'] };
    expect(scan(page('<script src="https://cdn.example/analytics/latest.js"></script>'), prefixed).scriptFound).toBe(true);
    expect(scan(page('<script src="https://cdn.example/latest.js"></script>'), prefixed)).toEqual({ ...NOTHING, foreignScript: 'https://cdn.example/latest.js' });
  });

  it.each([
    ["Simple Analytics' own snippet", 'https://scripts.simpleanalyticscdn.com/latest.js'],
    ['another host', 'https://cdn.example.test/latest.js'],
    ['a look-alike of the site', 'https://shop.example.evil.test/latest.js'],
    ['a subdomain of the site', 'https://cdn.shop.example/latest.js'],
    ['the public host on another port', 'https://t.tinytrack.example:8443/latest.js'],
    ['a subpath on the public origin', 'https://t.tinytrack.example/x/latest.js'],
  ])('reports %s as a foreign script', (_, src) => {
    expect(scan(page(`<script src="${src}?v=2"></script>`))).toEqual({ ...NOTHING, foreignScript: src });
  });

  it('still finds this service\'s script next to a foreign one', () => {
    const html = page('<script src="https://scripts.simpleanalyticscdn.com/latest.js"></script>', `<script src="${PUBLIC}/latest.js"></script>`);
    expect(scan(html)).toEqual({ ...NOTHING, scriptFound: true, foreignScript: 'https://scripts.simpleanalyticscdn.com/latest.js' });
  });

  it.each([
    ['source map', '<script src="/latest.js.map"></script>'],
    ['prefixed name', '<script src="/mylatest.js"></script>'],
    ['another file on the public origin', `<script src="${PUBLIC}/app.js"></script>`],
    ['directory named latest.js', '<script src="/latest.js/app.js"></script>'],
    ['path only in query', '<script src="/app.js?f=/latest.js"></script>'],
    ['inline script mentioning it', '<script>load("/latest.js")</script>'],
    ['no src', '<script data-src="/latest.js"></script>'],
    ['link, not script', '<link rel="preload" href="/latest.js" as="script">'],
    ['commented out', `<!-- <script src="${PUBLIC}/latest.js"></script> -->`],
    ['text only', '<p>add &lt;script src="/latest.js"&gt; to your page</p>'],
    ['data: URL', '<script src="data:text/javascript,/latest.js"></script>'],
    ['different case', '<script src="/LATEST.JS"></script>'],
  ])('ignores %s', (_, tag) => {
    expect(scan(page(tag))).toEqual(NOTHING);
  });

  it('resolves relative srcs against the page URL', () => {
    const elsewhere = { pageUrl: 'https://mirror.example/' };
    expect(scan(page('<script src="/latest.js"></script>'), elsewhere)).toEqual({ ...NOTHING, foreignScript: 'https://mirror.example/latest.js', iconUrls: ['https://mirror.example/favicon.ico'] });
    expect(classifyScriptSrc('latest.js', { ...ctx, pageUrl: 'https://www.shop.example/blog/' })).toEqual({ kind: 'proxied', script: 'https://www.shop.example/blog/latest.js' });
    expect(classifyScriptSrc('http://[::1', ctx)).toEqual({ kind: 'unrelated' });
  });

  it('copes with malformed HTML', () => {
    expect(scan(`<div><script src="${PUBLIC}/latest.js">`).scriptFound).toBe(true);
    expect(scan('<<<>>><script src')).toEqual(NOTHING);
    expect(scan('')).toEqual(NOTHING);
  });
});

describe('scanPage: the verify token in its places', () => {
  const meta = (token = TOKEN) => `<meta name="tinytrack-verification" content="${token}">`;

  it('finds it in a meta tag in head, also without explicit head and body tags', () => {
    expect(scan(page(`<title>x</title>${meta()}`))).toEqual({ ...NOTHING, tokenFound: true });
    expect(scan(`<!doctype html><meta charset="utf-8">${meta()}<p>hi</p>`)).toEqual({ ...NOTHING, tokenFound: true });
    expect(scan(page(`<META NAME=" Tinytrack-Verification " CONTENT=" ${TOKEN} ">`)).tokenFound).toBe(true);
  });

  it('finds it in a data-verification attribute of a script tag', () => {
    expect(scan(page('', `<script async src="https://cdn.example/x.js" data-verification="${TOKEN}"></script>`))).toEqual({ ...NOTHING, tokenFound: true });
  });

  it.each([
    ['an HTML comment', page(`<!-- ${TOKEN} -->`)],
    ['body text', page('<title>x</title>', `<p>Nice site! ${TOKEN}</p>`)],
    ['a meta tag in the body', page('', meta())],
    ['a meta tag after body text without a body tag', `<meta charset="utf-8"><p>comment</p>${meta()}`],
    ['another meta name', page(`<meta name="tinytrack-verify" content="${TOKEN}">`)],
    ['a data-verification on another element', page('', `<div data-verification="${TOKEN}"></div>`)],
    ['an inline script', page(`<script>var t = "${TOKEN}";</script>`)],
    ['the title', page(`<title>${TOKEN}</title>`)],
  ])('does not count it in %s, but says it is misplaced', (_, html) => {
    expect(scan(html)).toEqual({ ...NOTHING, tokenMisplaced: true });
  });

  it('does not count another or a partial token, and says a verification tag holds another value', () => {
    expect(scan(page(meta('tt_verify_3f9a1')))).toEqual({ ...NOTHING, tokenMisplaced: true });
    expect(scan(page('', '<p>tt_verify_000000</p>'))).toEqual(NOTHING);
  });

  it('never matches an empty token', () => {
    expect(scan(page(meta('')), { verifyToken: '' })).toEqual(NOTHING);
  });

  it('reports script and token together', () => {
    expect(scan(page(`<script src="${PUBLIC}/latest.js" data-verification="${TOKEN}"></script>`))).toEqual({ ...NOTHING, scriptFound: true, tokenFound: true });
  });
});

describe('hostTwins', () => {
  it('pairs the apex and its www. form', () => {
    expect(hostTwins('shop.example')).toEqual(['shop.example', 'www.shop.example']);
    expect(hostTwins('WWW.Shop.example')).toEqual(['www.shop.example', 'shop.example']);
  });
});

describe('scanPage: the site icon', () => {
  it('lists the first rel=icon link, resolved against the page, before /favicon.ico', () => {
    const html = page('<link rel="apple-touch-icon" href="/big.png"><link rel="Shortcut Icon" href="img/fav.png?v=2"><link rel="icon" href="/second.png">');
    expect(scan(html, { pageUrl: 'https://shop.example/en/home' }).iconUrls).toEqual(['https://shop.example/en/img/fav.png?v=2', 'https://shop.example/favicon.ico']);
  });

  it('ignores icon links that are not http(s), and lists /favicon.ico once', () => {
    expect(scan(page('<link rel="icon" href="data:image/png;base64,AAAA">')).iconUrls).toEqual(['https://shop.example/favicon.ico']);
    expect(scan(page('<link rel="icon" href="/favicon.ico">')).iconUrls).toEqual(['https://shop.example/favicon.ico']);
  });
});

const build = (await buildTracker()).code;

describe('isTrackerBuild: a proxied /latest.js is this service\'s script only when it serves the build', () => {
  it('accepts the build as served, and as a proxy may pass it on', () => {
    expect(isTrackerBuild(build, build)).toBe(true);
    for (const served of [`${build}\n\n`, `  ${build.trimEnd()}  \r\n`, `\uFEFF${build}`, build.replace(/\n/g, '\r\n'), `${build.trimEnd()} \t\n`]) {
      expect(isTrackerBuild(served, build), JSON.stringify(served.slice(-8))).toBe(true);
    }
  });

  it('refuses another script, another build, an edited or extended copy, and nothing at all', () => {
    const mathjax = 'window.MathJax={version:"3.2.2"};(function(){var s=document.createElement("script");s.src="/static/mathjax/tex-chtml.js";document.head.appendChild(s)})();';
    const cut = build.trimEnd();
    for (const served of [mathjax, `${cut};fetch("https://evil.example/x")`, `/*!x*/${cut}`, cut.slice(0, -1), cut.replace('tt', 'xx'), '', '<html>not found</html>']) {
      expect(isTrackerBuild(served, build), served.slice(0, 40)).toBe(false);
    }
    expect(isTrackerBuild('', '')).toBe(false);
  });
});
