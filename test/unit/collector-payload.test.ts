import { describe, expect, it } from 'vitest';
import { collectDntJson, collectDntQuery, parseJsonBody, parseJsonPayload, parseQueryPayload, type CollectorPayload } from '#domain/ingest/payload.ts';
import { parseQueryString } from '#http/query-string.ts';

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
  const q = (s: string) => parseQueryPayload(parseQueryString(s));

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
    expect(collectDntQuery(parseQueryString('collect-dnt=true'))).toBe(true);
    expect(collectDntQuery(parseQueryString('collect-dnt=no'))).toBe(false);
  });
});

describe('campaign tags inside query (the Simple Analytics script sends them only there)', () => {
  const tags = (payload: CollectorPayload) =>
    Object.fromEntries(
      ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'campaign_source', 'campaign_ref', 'campaign_medium', 'campaign_campaign', 'campaign_term', 'campaign_content']
        .map((k) => [k, (payload as unknown as Record<string, unknown>)[k]])
        .filter(([, v]) => v !== null),
    );

  it.each(['', '?'])('reads UTM and plain tags from query %j, with or without a leading ?', (lead) => {
    const p = ok({ query: `${lead}utm_source=news&utm_medium=mail&utm_campaign=spring%20sale&utm_term=shoes&utm_content=top&source=src&ref=hn&medium=med&campaign=camp&term=t&content=c&other=x` });
    expect(tags(p)).toEqual({
      utm_source: 'news', utm_medium: 'mail', utm_campaign: 'spring sale', utm_term: 'shoes', utm_content: 'top',
      campaign_source: 'src', campaign_ref: 'hn', campaign_medium: 'med', campaign_campaign: 'camp', campaign_term: 't', campaign_content: 'c',
    });
  });

  it('lets a separate field win over the same tag in query, tag by tag; blanks in query are none', () => {
    const p = ok({ utm_source: 'field', ref: 'field-ref', query: 'utm_source=query&utm_medium=from-query&ref=query-ref&utm_term=%20&source=+' });
    expect(tags(p)).toEqual({ utm_source: 'field', utm_medium: 'from-query', campaign_ref: 'field-ref' });
    expect(p.query).toBe('utm_source=query&utm_medium=from-query&ref=query-ref&utm_term=%20&source=+');
  });

  it('reads nothing from a query without tags', () => {
    expect(tags(ok({ query: '?page=2' }))).toEqual({});
    expect(tags(ok({ query: 'utm_source' }))).toEqual({});
  });

  it('reads them on the image routes too (query URL-encoded inside the parameter)', () => {
    const r = parseQueryPayload({ hostname: 'a.example', query: 'utm_source=news&ref=hn', utm_medium: 'cpc' });
    expect(r.ok && tags(r.payload)).toEqual({ utm_source: 'news', utm_medium: 'cpc', campaign_ref: 'hn' });
  });
});

describe('Simple Analytics payload items', () => {
  it('accepts type error (counted as a client error, never stored)', () => {
    expect(ok({ type: 'error', error: 'boom', url: 'a.example/x' }).type).toBe('error');
    const r = parseQueryPayload(parseQueryString('hostname=a.example&type=error&error=boom'));
    expect(r.ok && r.payload.type).toBe('error');
  });

  it('reads brave and duck as booleans, "true"/"1" on the image routes', () => {
    expect([ok({ brave: true }).brave, ok({ duck: true }).duck, ok({}).brave, ok({}).duck]).toEqual([true, true, null, null]);
    const r = parseQueryPayload(parseQueryString('hostname=a.example&brave=true&duck=1'));
    expect(r.ok && [r.payload.brave, r.payload.duck]).toEqual([true, true]);
    expect(error({ ...base, brave: 'yes' })).toBe('invalid brave');
  });

  it('keeps brands sent as JSON text, and a JSON list on the JSON routes as its text', () => {
    const list = [{ brand: 'Chromium', version: '156' }, { brand: 'Not A;Brand', version: '24' }];
    expect(ok({ brands: JSON.stringify(list) }).brands).toBe(JSON.stringify(list));
    expect(ok({ brands: list }).brands).toBe(JSON.stringify(list));
    expect(error({ ...base, brands: Array.from({ length: 20 }, () => list[0]) })).toBe('invalid brands');
    expect(error({ ...base, brands: { brand: 'x' } })).toBe('invalid brands');
  });

  it('takes metadata [] (the script\'s "no metadata") as none; other arrays stay invalid', () => {
    expect(ok({ metadata: [] }).metadata).toBeNull();
    const r = parseQueryPayload(parseQueryString('hostname=a.example&metadata=%5B%5D'));
    expect(r.ok && r.payload.metadata).toBeNull();
    expect(error({ ...base, metadata: [1] })).toBe('invalid metadata');
  });

  it('ignores version and original_hostname whatever their type', () => {
    const p = ok({ version: 5, original_hostname: 'staging.example', hostname_original: 'x' });
    expect(Object.keys(p)).not.toContain('version');
    expect(Object.keys(p)).not.toContain('original_hostname');
  });
});
