import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_IMPORT_RANGE_DAYS, parseImportRequest, parseRetryCredentials } from '#domain/imports/create-request.ts';
import { IMPORT_SOURCES, MAX_SOURCE_ERROR_BODY, SIMPLE_ANALYTICS, publicConfig, sourceFormatError, sourceNetworkError, sourceStatusError, sourceView } from '#domain/imports/source.ts';
import { PLAUSIBLE_API_KEY, echoAt, leakedPart } from '../support/fake-simpleanalytics.ts';

const now = new Date('2026-03-15T12:00:00Z');
const body = (over: Record<string, unknown> = {}, config: Record<string, unknown> = {}) => ({
  source: 'simpleanalytics',
  range_start: '2026-01-01',
  range_end: '2026-02-28',
  config: { user_id: 'sa_user_id_1', api_key: 'sa_api_key_secret', source_hostname: 'Old-Blog.example.org', ...config },
  ...over,
});
const error = (b: unknown) => {
  const r = parseImportRequest(b, now);
  return r.ok ? null : r.error;
};

describe('parseImportRequest (create checks 3 and 4, in order)', () => {
  it('accepts a valid body and normalizes the source hostname', () => {
    const r = parseImportRequest(body(), now);
    expect(r).toEqual({
      ok: true,
      request: {
        source: SIMPLE_ANALYTICS,
        range_start: '2026-01-01',
        range_end: '2026-02-28',
        credentials: { user_id: 'sa_user_id_1', api_key: 'sa_api_key_secret' },
        source_hostname: 'old-blog.example.org',
      },
    });
  });

  it.each([
    ['a missing body', undefined],
    ['a non-object body', 'range'],
    ['an array body', []],
    ['no dates', { source: 'simpleanalytics' }],
    ['a word for a date', body({ range_end: 'never' })],
    ['an impossible day', body({ range_start: '2026-02-30' })],
    ['a timestamp instead of a date', body({ range_start: '2026-01-01T00:00:00Z' })],
    ['a number', body({ range_start: 20260101 })],
    ['end before start', body({ range_start: '2026-02-02', range_end: '2026-02-01' })],
    ['an end in the future', body({ range_end: '2026-03-16' })],
    ['401 days', body({ range_start: '2025-02-08', range_end: '2026-03-15' })],
  ])('answers invalid date range for %s', (_, b) => {
    expect(error(b)).toBe('invalid date range');
  });

  it('accepts exactly 400 days ending today, and a single day', () => {
    expect(error(body({ range_start: '2025-02-09', range_end: '2026-03-15' }))).toBeNull();
    expect(MAX_IMPORT_RANGE_DAYS).toBe(400);
    expect(error(body({ range_start: '2026-03-15', range_end: '2026-03-15' }))).toBeNull();
  });

  it('checks dates before the configuration when both are wrong', () => {
    expect(error(body({ range_end: 'never', source: 'matomo' }, { user_id: undefined }))).toBe('invalid date range');
  });

  it.each([
    ['unknown import source', body({ source: 'matomo' }, { user_id: '', api_key: '' })],
    ['unknown import source', body({ source: undefined })],
    ['User ID is required', body({}, { user_id: undefined, api_key: undefined })],
    ['User ID is required', body({}, { user_id: '   ' })],
    ['User ID is required', body({}, { user_id: 42 })],
    ['User ID is required', body({ config: 'x' })],
    ['API key is required', body({}, { api_key: '', source_hostname: '' })],
    ['API key is invalid', body({}, { api_key: 'sa_api_key_1234', source_hostname: '' })],
    ['API key is invalid', body({}, { api_key: `sa_api_key_${'a'.repeat(118)}` })],
    ['API key is invalid', body({}, { api_key: 'sa_api_key_with space' })],
    ['API key is invalid', body({}, { api_key: 'sa_api_key_"quoted"_x' })],
    ['API key is invalid', body({}, { api_key: 'sa_api_key_ünïcödé_x' })],
    ['API key is invalid', body({}, { api_key: 'sa_api_key/../../x' })],
    ['Source hostname is required', body({}, { source_hostname: undefined })],
    ['Source hostname is required', body({}, { source_hostname: ' ' })],
    ['Source hostname is invalid', body({}, { source_hostname: '127.0.0.1' })],
    ['Source hostname is invalid', body({}, { source_hostname: 'example.com:8080' })],
    ['Source hostname is invalid', body({}, { source_hostname: 'no_dots' })],
  ])('answers %s, the first failing check', (expected, b) => {
    expect(error(b)).toBe(expected);
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(fc.anything(), (b) => {
        const r = parseImportRequest(b, now);
        expect(typeof r.ok).toBe('boolean');
      }),
    );
  });
});

describe('the API key check', () => {
  it('accepts keys shaped like real ones: 16 to 128 characters of letters, digits, _ and -', () => {
    for (const key of [PLAUSIBLE_API_KEY, 'sa_api_key_12345', `sa_api_key_${'Z'.repeat(117)}`, '0123456789abcdef', 'a-b_c-d_e-f_g-h_']) {
      expect(error(body({}, { api_key: key })), key).toBeNull();
    }
  });
});

describe('parseRetryCredentials', () => {
  it('takes a new API key, ignores the rest', () => {
    expect(parseRetryCredentials({ config: { api_key: ` ${PLAUSIBLE_API_KEY} `, user_id: 'u' } })).toEqual({ api_key: PLAUSIBLE_API_KEY });
    expect(parseRetryCredentials(undefined)).toEqual({});
    expect(parseRetryCredentials({ config: { api_key: '' } })).toEqual({});
  });

  it('refuses a key that cannot be one', () => {
    expect(parseRetryCredentials({ config: { api_key: 'k2' } })).toEqual({ error: 'API key is invalid' });
    expect(parseRetryCredentials({ config: { api_key: 'sa_api_key_<script>' } })).toEqual({ error: 'API key is invalid' });
  });
});

describe('the Simple Analytics source', () => {
  it('is described with three fields and no credentials', () => {
    expect(IMPORT_SOURCES.map((s) => [s.id, s.label])).toEqual([['simpleanalytics', 'SimpleAnalytics']]);
    const view = sourceView(SIMPLE_ANALYTICS);
    expect(view.configFields.map((f) => [f.key, f.type, f.required])).toEqual([
      ['user_id', 'text', true],
      ['api_key', 'password', true],
      ['source_hostname', 'text', true],
    ]);
    for (const f of view.configFields) expect(f.label && f.placeholder && f.help).toBeTruthy();
  });

  it('keeps password fields out of a shown configuration', () => {
    expect(publicConfig(SIMPLE_ANALYTICS, { user_id: 'u', api_key: 'k', source_hostname: 'h.example', extra: 'x' })).toEqual({ user_id: 'u', source_hostname: 'h.example' });
  });

  it('builds the credential-test texts with at most 200 characters of the answer', () => {
    expect(sourceStatusError(SIMPLE_ANALYTICS, 401, 'Unauthorized')).toBe('SimpleAnalytics returned 401: Unauthorized');
    const long = sourceStatusError(SIMPLE_ANALYTICS, 500, 'x'.repeat(500));
    expect(long).toBe(`SimpleAnalytics returned 500: ${'x'.repeat(200)}`);
    expect(sourceNetworkError(SIMPLE_ANALYTICS, 'connect ECONNREFUSED 127.0.0.1:9')).toBe('SimpleAnalytics error: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('never lets 8 or more characters of the key through, wherever the answer echoes it around the cut', () => {
    const key = PLAUSIBLE_API_KEY;
    const texts = [
      (offset: number) => sourceStatusError(SIMPLE_ANALYTICS, 401, echoAt(key, offset), [key]),
      (offset: number) => sourceNetworkError(SIMPLE_ANALYTICS, echoAt(key, offset), [key]),
      (offset: number) => sourceFormatError(SIMPLE_ANALYTICS, echoAt(key, offset), [key]),
    ];
    for (const text of texts) {
      for (let offset = 0; offset <= MAX_SOURCE_ERROR_BODY + 10; offset++) {
        const error = text(offset);
        expect(leakedPart(error, key), `offset ${offset}: ${error}`).toBeNull();
        expect(error.length).toBeLessThanOrEqual(error.indexOf(': ') + 2 + MAX_SOURCE_ERROR_BODY);
      }
    }
  });

  it('never repeats the API key in an error text', () => {
    expect(sourceStatusError(SIMPLE_ANALYTICS, 403, 'key sa_api_key_abc is not valid', ['sa_api_key_abc'])).toBe('SimpleAnalytics returned 403: key [redacted] is not valid');
  });
});
