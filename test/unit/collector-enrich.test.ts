import { describe, expect, it } from 'vitest';
import {
  countryFromTimezone,
  deriveSource,
  isBotUserAgent,
  parseTechnology,
  referrerHost,
  serializeMetadata,
  visitorHash,
} from '#domain/ingest/enrich.ts';
import { normalizeEventName } from '#domain/event-name.ts';

describe('normalizeEventName', () => {
  it.each([
    ['Add to Cart', 'Add_to_Cart'],
    ['--promo code--', 'promo_code'],
    ['a...b', 'a_b'],
    ['___', ''],
    ['', ''],
    ['héllo wörld', 'h_llo_w_rld'],
    ['signup', 'signup'],
    ['42', '42'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeEventName(input)).toBe(expected);
  });

  it('cuts to 256 characters before cleaning', () => {
    expect(normalizeEventName('a'.repeat(300))).toHaveLength(256);
    expect(normalizeEventName('a'.repeat(255) + '!b')).toBe('a'.repeat(255));
  });
});

describe('serializeMetadata', () => {
  it('keeps at most 4,096 characters', () => {
    expect(serializeMetadata({ a: 'x'.repeat(5000) })).toHaveLength(4096);
    expect(serializeMetadata({ a: 1 })).toBe('{"a":1}');
    expect(serializeMetadata(null)).toBeNull();
  });
});

describe('visitorHash', () => {
  it('changes with the day, site, IP, UA and salt', () => {
    const h = visitorHash('2026-01-01', 'a.example', '1.2.3.4', 'UA', 'salt');
    expect(h).toMatch(/^[0-9a-f]{32}$/);
    expect(visitorHash('2026-01-01', 'a.example', '1.2.3.4', 'UA', 'salt')).toBe(h);
    for (const other of [
      visitorHash('2026-01-02', 'a.example', '1.2.3.4', 'UA', 'salt'),
      visitorHash('2026-01-01', 'b.example', '1.2.3.4', 'UA', 'salt'),
      visitorHash('2026-01-01', 'a.example', '1.2.3.5', 'UA', 'salt'),
      visitorHash('2026-01-01', 'a.example', '1.2.3.4', 'UA2', 'salt'),
      visitorHash('2026-01-01', 'a.example', '1.2.3.4', 'UA', 'salt2'),
    ])
      expect(other).not.toBe(h);
  });
});

describe('countryFromTimezone', () => {
  it.each([
    ['Europe/Berlin', 'DE'],
    ['Asia/Kolkata', 'IN'],
    ['America/New_York', 'US'],
    ['Asia/Tokyo', 'JP'],
    ['UTC', null],
    ['Mars/Olympus', null],
    [null, null],
  ])('%s → %s', (tz, country) => {
    expect(countryFromTimezone(tz)).toBe(country);
  });
});

describe('bots', () => {
  it.each([
    ['curl/8.5.0', true],
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', true],
    ['', true],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', false],
  ])('%j → %s', (ua, bot) => {
    expect(isBotUserAgent(ua)).toBe(bot);
  });
});

describe('parseTechnology', () => {
  const none = { brands: null, mobile: null, os_name: null };
  it('reads browser, OS and device from the UA', () => {
    expect(parseTechnology('Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1', none)).toEqual({
      browser: 'Safari',
      os: 'iOS',
      device: 'mobile',
    });
    expect(parseTechnology('Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', none)).toEqual({ browser: 'Firefox', os: 'Linux', device: 'desktop' });
  });

  it('prefers client hints', () => {
    const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
    expect(parseTechnology(ua, { brands: 'Not-A.Brand;99,Chromium;124,Microsoft Edge;124', mobile: false, os_name: 'Windows' })).toEqual({
      browser: 'Edge',
      os: 'Windows',
      device: 'desktop',
    });
    expect(parseTechnology(ua, { brands: null, mobile: true, os_name: 'Android' }).device).toBe('mobile');
  });

  it('never lets brands without a known browser override the user agent', () => {
    const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/110.0.0.0';
    for (const brands of ['[{"brand":"Chromium"', '[{"brand":"Not A;Brand","version":"24"}]', 'Not A;Brand;99', 'Whatever;1']) {
      expect(parseTechnology(ua, { brands, mobile: false, os_name: null }).browser, brands).toBe('Opera');
    }
  });

  it('reads the JSON brands of the Simple Analytics script, grease skipped, the specific brand over Chromium', () => {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
    const brands = '[{"brand":"Chromium","version":"156"},{"brand":"Not A;Brand","version":"24"},{"brand":"Google Chrome","version":"156"}]';
    expect(parseTechnology(ua, { brands, mobile: false, os_name: null }).browser).toBe('Chrome');
    expect(parseTechnology(ua, { brands: 'Not A;Brand;99,Chromium;156,Microsoft Edge;156', mobile: false, os_name: null }).browser).toBe('Edge');
  });

  it('names Brave and DuckDuckGo from their flags, which their user agents hide', () => {
    const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
    const safari = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
    expect(parseTechnology(chrome, { ...none, brave: true }).browser).toBe('Brave');
    expect(parseTechnology(safari, { ...none, duck: true }).browser).toBe('DuckDuckGo');
    expect(parseTechnology(safari, { ...none, duck: false, brave: false }).browser).toBe('Safari');
  });
});

describe('sources', () => {
  it('normalizes the referring host', () => {
    expect(referrerHost('https://WWW.Google.com/search?q=x')).toBe('google.com');
    expect(referrerHost('news.ycombinator.com/item')).toBe('news.ycombinator.com');
    expect(referrerHost('')).toBeNull();
    expect(referrerHost('http://')).toBeNull();
  });

  it('uses campaign precedence, then the referring host; internal navigation has no source', () => {
    const none = { utm_source: null, campaign_source: null, campaign_ref: null };
    expect(deriveSource({ ...none, utm_source: 'newsletter', campaign_ref: 'x' }, 'google.com', 'shop.example')).toBe('newsletter');
    expect(deriveSource({ ...none, campaign_source: 'tw' }, 'google.com', 'shop.example')).toBe('tw');
    expect(deriveSource({ ...none, campaign_ref: 'ph' }, null, 'shop.example')).toBe('ph');
    expect(deriveSource(none, 'google.com', 'shop.example')).toBe('Google');
    expect(deriveSource(none, 'shop.example', 'www.shop.example')).toBeNull();
    expect(deriveSource(none, 'blog.shop.example', 'shop.example')).toBeNull();
    expect(deriveSource(none, null, 'shop.example')).toBeNull();
  });
});
