import { describe, expect, it } from 'vitest';
import { collectDntJson, collectDntQuery, parseJsonBody, parseJsonPayload, parseQueryPayload } from '#domain/collector/payload.ts';

const base = { hostname: 'shop.example', path: '/a' };
const ok = (body: Record<string, unknown>) => {
  const r = parseJsonPayload({ ...base, ...body });
  if (!r.ok) throw new Error(r.error);
  return r.payload;
};
const error = (body: unknown) => {
  const r = parseJsonPayload(body);
  return r.ok ? null : r.error;
};

describe('parseJsonPayload', () => {
  it('defaults type to pageview and path to /', () => {
    const p = parseJsonPayload({ hostname: 'a.example' });
    expect(p.ok && [p.payload.type, p.payload.path, p.payload.bot]).toEqual(['pageview', '/', false]);
  });

  it.each([
    [[{ hostname: 'a.example' }], 'invalid body: expected one JSON object'],
    ['x', 'invalid body: expected one JSON object'],
    [null, 'invalid body: expected one JSON object'],
    [{}, 'invalid hostname'],
    [{ hostname: 5 }, 'invalid hostname'],
    [{ hostname: 'h'.repeat(254) }, 'invalid hostname'],
    [{ ...base, type: 'click' }, 'invalid type'],
    [{ ...base, path: 'no-slash' }, 'invalid path'],
    [{ ...base, path: '/' + 'p'.repeat(2048) }, 'invalid path'],
    [{ ...base, referrer: 'r'.repeat(2049) }, 'invalid referrer'],
    [{ ...base, ua: 'u'.repeat(1025) }, 'invalid ua'],
    [{ ...base, viewport_width: 100001 }, 'invalid viewport_width'],
    [{ ...base, screen_height: 1.5 }, 'invalid screen_height'],
    [{ ...base, screen_width: -1 }, 'invalid screen_width'],
    [{ ...base, duration: 86401 }, 'invalid duration'],
    [{ ...base, scrolled: 101 }, 'invalid scrolled'],
    [{ ...base, scrolled: '50' }, 'invalid scrolled'],
    [{ ...base, metadata: [1] }, 'invalid metadata'],
    [{ ...base, metadata: 'x' }, 'invalid metadata'],
    [{ ...base, unique: 'yes' }, 'invalid unique'],
    [{ ...base, https: 1 }, 'invalid https'],
    [{ ...base, id: 'i'.repeat(129) }, 'invalid id'],
  ])('refuses %j with %s', (body, message) => {
    expect(error(body)).toBe(message);
  });

  it('accepts the bounds exactly', () => {
    const p = ok({ path: '/' + 'p'.repeat(2047), viewport_width: 100000, duration: 86400, scrolled: 100, ua: 'u'.repeat(1024) });
    expect([p.viewport_width, p.duration, p.scrolled]).toEqual([100000, 86400, 100]);
  });

  it('keeps only string, number and boolean metadata values', () => {
    expect(ok({ metadata: { a: 'x', b: 2, c: true, d: null, e: { f: 1 }, g: [1] } }).metadata).toEqual({ a: 'x', b: 2, c: true });
    expect(ok({ metadata: {} }).metadata).toBeNull();
  });

  it('reads numbers as event names and ids', () => {
    const p = ok({ type: 'event', event: 42, id: 7 });
    expect([p.event, p.id]).toEqual(['42', '7']);
  });

  it('reads campaign tags in both forms and ignores unknown fields', () => {
    const p = ok({ utm_source: 'news', ref: 'producthunt', medium: 'email', whatever: { deep: 1 } });
    expect([p.utm_source, p.campaign_ref, p.campaign_medium]).toEqual(['news', 'producthunt', 'email']);
  });
});

describe('parseQueryPayload', () => {
  const q = (s: string) => parseQueryPayload(new URLSearchParams(s));

  it('reads typed values from strings', () => {
    const r = q('hostname=a.example&path=%2Fx&unique=true&https=0&viewport_width=800&duration=12.5&metadata=%7B%22plan%22%3A%22pro%22%7D&type=event&event=Sign%20up');
    expect(r.ok && r.payload).toMatchObject({ path: '/x', unique: true, https: false, viewport_width: 800, duration: 12.5, metadata: { plan: 'pro' }, type: 'event', event: 'Sign up' });
  });

  it.each([
    ['path=/x', 'invalid hostname'],
    ['hostname=a.example&unique=maybe', 'invalid unique'],
    ['hostname=a.example&viewport_width=12px', 'invalid viewport_width'],
    ['hostname=a.example&metadata=%7Bbroken', 'invalid metadata'],
    ['hostname=a.example&scrolled=1e2', 'invalid scrolled'],
  ])('refuses %s', (s, message) => {
    expect(q(s)).toEqual({ ok: false, error: message });
  });
});

describe('labels', () => {
  it('keeps campaign tags, language and OS hints trimmed, a blank one as none', () => {
    const p = ok({ utm_source: ' fb ', utm_medium: '  ', source: ' tw ', language: ' de ', os_name: ' ' });
    expect([p.utm_source, p.utm_medium, p.campaign_source, p.language, p.os_name]).toEqual(['fb', null, 'tw', 'de', null]);
  });
});

describe('parseJsonBody', () => {
  it('takes one JSON object, nothing else', () => {
    expect(parseJsonBody('{"hostname":"a.example"}')).toEqual({ ok: true, body: { hostname: 'a.example' } });
    for (const text of ['', '{broken', '[{"hostname":"a.example"}]', '[]', '"x"', '5', 'null', 'hostname=a.example']) {
      expect(parseJsonBody(text), text).toEqual({ ok: false, error: 'invalid body: expected one JSON object' });
    }
  });
});

describe('collect-dnt', () => {
  it('is true only when explicitly set', () => {
    expect(collectDntJson({ 'collect-dnt': true })).toBe(true);
    expect(collectDntJson({ 'collect-dnt': 'true' })).toBe(false);
    expect(collectDntQuery(new URLSearchParams('collect-dnt=true'))).toBe(true);
    expect(collectDntQuery(new URLSearchParams('collect-dnt=no'))).toBe(false);
  });
});
