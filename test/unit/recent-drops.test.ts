import { describe, expect, it } from 'vitest';
import { DROP_WINDOW_MS, DropCounts, dropAdvice, isLocalHost, setupDrops, siteOfSentHostname } from '#domain/recent-drops.ts';
import { trackerSnippet } from '#domain/snippet.ts';

const HOUR = 60 * 60_000;

describe('DropCounts', () => {
  it('counts per hostname as sent (lowercased) and reason, with the first and last time', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const counts = new DropCounts(100, () => now, Infinity);
    counts.record('A.example:8080', 'invalid_hostname');
    now += 1000;
    counts.record('a.example:8080', 'invalid_hostname');
    counts.record('a.example', 'unverified');
    expect(counts.find((s) => s === 'a.example', HOUR)).toEqual([
      { hostname: 'a.example:8080', reason: 'invalid_hostname', count: 2, first_at: '2026-01-01T00:00:00.000Z', last_at: '2026-01-01T00:00:01.000Z' },
      { hostname: 'a.example', reason: 'unverified', count: 1, first_at: '2026-01-01T00:00:01.000Z', last_at: '2026-01-01T00:00:01.000Z' },
    ]);
  });

  it('restarts a count once its first drop is a day old, and finds only what was seen within the asked time', () => {
    let now = 0;
    const counts = new DropCounts(100, () => now, Infinity);
    counts.record('a.example', 'unknown_site');
    counts.record('a.example', 'unknown_site');
    now += 2 * HOUR;
    expect(counts.find(() => true, HOUR)).toEqual([]);
    expect(counts.find(() => true, 3 * HOUR)[0]?.count).toBe(2);
    now = DROP_WINDOW_MS;
    counts.record('a.example', 'unknown_site');
    expect(counts.find(() => true, HOUR)).toMatchObject([{ count: 1, first_at: new Date(DROP_WINDOW_MS).toISOString() }]);
  });

  it('holds at most maxEntries tallies and maxBytes, pushing out the oldest', () => {
    const counts = new DropCounts(100, () => 0, 20_000);
    for (let i = 0; i < 1000; i++) counts.record(`h${i}.example`, 'unknown_site');
    expect(counts.size).toBe(100);
    const small = new DropCounts(1000, () => 0, 2_000);
    for (let i = 0; i < 1000; i++) small.record(`${'x'.repeat(200)}${i}.example`, 'unknown_site');
    expect(small.bytes).toBeLessThanOrEqual(2_000);
    const held = small.find(() => true, HOUR).map((d) => d.hostname.slice(200));
    expect(held.length).toBeGreaterThan(0);
    expect(held.sort().at(-1)).toBe('999.example');
    expect(held).not.toContain('0.example');
  });
});

describe('siteOfSentHostname', () => {
  it.each([
    ['a.example', 'a.example'],
    ['a.example:8080', 'a.example'],
    ['https://a.example/page', 'a.example'],
    ['a.example.', 'a.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['localhost:3000', 'localhost'],
    ['[::1]:8080', '[::1]'],
    ['::1', '::1'],
    ['127.0.0.1', '127.0.0.1'],
  ])('%s means %s', (sent, site) => expect(siteOfSentHostname(sent)).toBe(site));
});

describe('isLocalHost', () => {
  it('knows localhost, its subdomains and loopback addresses, and nothing else', () => {
    expect(['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '0.0.0.0'].every(isLocalHost)).toBe(true);
    expect(['localhost.example', 'a.example', '10.0.0.1', 'mylocalhost'].some(isLocalHost)).toBe(false);
  });
});

describe('dropAdvice', () => {
  const site = 'a.example';
  it('tells a local tester to add data-hostname, whatever the reason', () => {
    expect(dropAdvice(site, { hostname: 'localhost:3000', reason: 'invalid_hostname' })).toContain('add data-hostname="a.example" to the script tag');
  });
  it('names the hostname without its port', () => {
    expect(dropAdvice(site, { hostname: 'a.example:8080', reason: 'invalid_hostname' })).toContain('send a.example without the port');
  });
  it('tells the owner of an unregistered twin to register it or count it as the site', () => {
    const advice = dropAdvice(site, { hostname: 'www.a.example', reason: 'unknown_site' });
    expect(advice).toContain('www.a.example is not registered');
    expect(advice).toContain('data-hostname="a.example"');
  });
  it('names the verify call of an unverified name', () => {
    expect(dropAdvice(site, { hostname: 'www.a.example', reason: 'unverified' })).toContain('POST /api/sites/www.a.example/verify');
  });
  it('explains other reasons', () => {
    expect(dropAdvice(site, { hostname: 'a.example', reason: 'replay' })).toContain('same id');
  });
});

describe('setupDrops', () => {
  it('splits the names of the site from local pages, leaving out other hostnames, each with advice', () => {
    const counts = new DropCounts(100, () => 0, Infinity);
    for (const h of ['www.a.example', 'a.example:8080', 'b.example', 'localhost']) counts.record(h, h === 'www.a.example' ? 'unknown_site' : 'invalid_hostname');
    const { recent_drops, local_drops } = setupDrops(counts, 'a.example', ['a.example', 'www.a.example']);
    expect(recent_drops.map((d) => d.hostname).sort()).toEqual(['a.example:8080', 'www.a.example']);
    expect(local_drops.map((d) => [d.hostname, d.advice])).toEqual([['localhost', expect.stringContaining('data-hostname="a.example"')]]);
  });
});

describe('trackerSnippet', () => {
  it('loads latest.js from the origin, its path prefix kept, with data-hostname when asked', () => {
    expect(trackerSnippet('https://t.example')).toBe('<script async src="https://t.example/latest.js"></script>');
    expect(trackerSnippet('https://t.example/tt/', 'a.example')).toBe('<script async src="https://t.example/tt/latest.js" data-hostname="a.example"></script>');
    expect(trackerSnippet('not a url')).toBeNull();
  });
});
