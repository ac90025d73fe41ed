import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FILTER_COLUMNS, FILTER_DIMS, isFilterDim, parseFilter, primaryLanguage } from '#domain/reports/filter.ts';
import type { FilterClause } from '#domain/reports/filter.ts';

describe('FILTER_DIMS / FILTER_COLUMNS', () => {
  it('lists the dims of DESIGN.md §4 and maps them to event-store columns', () => {
    expect([...FILTER_DIMS]).toEqual([
      'page',
      'referrer',
      'source',
      'utm_source',
      'utm_medium',
      'utm_campaign',
      'utm_term',
      'utm_content',
      'country',
      'device',
      'browser',
      'os',
      'language',
      'event',
    ]);
    expect(FILTER_COLUMNS).toEqual({
      page: 'path',
      referrer: 'referrer_host',
      source: 'source',
      utm_source: 'utm_source',
      utm_medium: 'utm_medium',
      utm_campaign: 'utm_campaign',
      utm_term: 'utm_term',
      utm_content: 'utm_content',
      country: 'country',
      device: 'device',
      browser: 'browser',
      os: 'os',
      language: 'language',
      event: 'event',
    });
  });

  it('isFilterDim ignores inherited properties', () => {
    expect(isFilterDim('page')).toBe(true);
    expect(isFilterDim('toString')).toBe(false);
    expect(isFilterDim('__proto__')).toBe(false);
  });
});

describe('parseFilter: valid', () => {
  it.each<[string | undefined, FilterClause[]]>([
    [undefined, []],
    ['', []],
    [';', []],
    [';;', []],
    ['page:/pricing', [{ dim: 'page', op: 'eq', value: '/pricing' }]],
    ['page!/pricing', [{ dim: 'page', op: 'neq', value: '/pricing' }]],
    ['page~pric', [{ dim: 'page', op: 'contains', value: 'pric' }]],
    ['page:%2Fpricing%3Bteam', [{ dim: 'page', op: 'eq', value: '/pricing;team' }]],
    ['page:/pricing;', [{ dim: 'page', op: 'eq', value: '/pricing' }]],
    [
      'referrer!google.com;country:NL',
      [
        { dim: 'referrer', op: 'neq', value: 'google.com' },
        { dim: 'country', op: 'eq', value: 'NL' },
      ],
    ],
    [
      'page:/a;;country:NL',
      [
        { dim: 'page', op: 'eq', value: '/a' },
        { dim: 'country', op: 'eq', value: 'NL' },
      ],
    ],
    // The first operator character splits; the rest belongs to the value.
    ['page:/a:b', [{ dim: 'page', op: 'eq', value: '/a:b' }]],
    ['page:a!b~c', [{ dim: 'page', op: 'eq', value: 'a!b~c' }]],
    ['page!:x', [{ dim: 'page', op: 'neq', value: ':x' }]],
    ['page~!', [{ dim: 'page', op: 'contains', value: '!' }]],
    // Empty values are allowed.
    ['utm_source:', [{ dim: 'utm_source', op: 'eq', value: '' }]],
    ['utm_source!', [{ dim: 'utm_source', op: 'neq', value: '' }]],
    ['event~', [{ dim: 'event', op: 'contains', value: '' }]],
    // Decoding: percent escapes, UTF-8, and `+` kept literally.
    ['event:sign%20up', [{ dim: 'event', op: 'eq', value: 'sign up' }]],
    ['utm_campaign:a+b', [{ dim: 'utm_campaign', op: 'eq', value: 'a+b' }]],
    ['page:/caf%C3%A9', [{ dim: 'page', op: 'eq', value: '/café' }]],
    ['page:/café', [{ dim: 'page', op: 'eq', value: '/café' }]],
    ['page:%25', [{ dim: 'page', op: 'eq', value: '%' }]],
    ['page: /x ', [{ dim: 'page', op: 'eq', value: ' /x ' }]],
    [
      'source:Google;utm_medium:cpc;utm_campaign~spring;utm_term!shoes;utm_content:ad1;device:Mobile;browser~Fire;os!Windows;language:nl',
      [
        { dim: 'source', op: 'eq', value: 'Google' },
        { dim: 'utm_medium', op: 'eq', value: 'cpc' },
        { dim: 'utm_campaign', op: 'contains', value: 'spring' },
        { dim: 'utm_term', op: 'neq', value: 'shoes' },
        { dim: 'utm_content', op: 'eq', value: 'ad1' },
        { dim: 'device', op: 'eq', value: 'Mobile' },
        { dim: 'browser', op: 'contains', value: 'Fire' },
        { dim: 'os', op: 'neq', value: 'Windows' },
        { dim: 'language', op: 'eq', value: 'nl' },
      ],
    ],
  ])('%j', (raw, expected) => {
    expect(parseFilter(raw)).toEqual(expected);
  });
});

describe('parseFilter: invalid', () => {
  it.each([
    'page', // no operator
    'page=/x',
    ':x', // empty dim
    '!x',
    '~x',
    'foo:bar', // unknown dim
    'pages:/x', // a breakdown dim, not a filter dim
    'metadata:x',
    'Page:/x', // case-sensitive
    ' page:/x', // no trimming
    'page :/x',
    'toString:x',
    '__proto__:x',
    'constructor!x',
    'page:%', // bad escapes
    'page:%zz',
    'page:%E0%A4%A',
    'page:%C3',
    'page:/x;bad', // one bad clause spoils the filter
    'page:/x;foo:y',
    'page:/x; ',
  ])('%j → null', (raw) => {
    expect(parseFilter(raw)).toBeNull();
  });
});

describe('parseFilter: round trip', () => {
  it('encodeURIComponent values always parse back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...FILTER_DIMS), fc.constantFrom(':', '!', '~'), fc.string({ unit: 'grapheme' })), { minLength: 1, maxLength: 5 }),
        (clauses) => {
          const raw = clauses.map(([dim, op, value]) => `${dim}${op}${encodeURIComponent(value)}`).join(';');
          const ops = { ':': 'eq', '!': 'neq', '~': 'contains' } as const;
          expect(parseFilter(raw)).toEqual(clauses.map(([dim, op, value]) => ({ dim, op: ops[op], value })));
        },
      ),
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const out = parseFilter(raw);
        if (out !== null) for (const c of out) expect(isFilterDim(c.dim)).toBe(true);
      }),
    );
  });
});

describe('primaryLanguage', () => {
  it('reads a bare 2–3 letter subtag of language is / is not, lower-cased; nothing else', () => {
    expect(primaryLanguage({ dim: 'language', op: 'eq', value: 'EN' })).toBe('en');
    expect(primaryLanguage({ dim: 'language', op: 'neq', value: 'fil' })).toBe('fil');
    expect(primaryLanguage({ dim: 'language', op: 'eq', value: 'en-GB' })).toBeNull();
    expect(primaryLanguage({ dim: 'language', op: 'contains', value: 'en' })).toBeNull();
    expect(primaryLanguage({ dim: 'language', op: 'eq', value: 'e' })).toBeNull();
    expect(primaryLanguage({ dim: 'country', op: 'eq', value: 'DE' })).toBeNull();
  });
});
