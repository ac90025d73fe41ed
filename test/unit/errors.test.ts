/**
 * Refusals are named classes carrying their text once; the edge alone turns
 * a kind into a status, and the OpenAPI document lists each text under that
 * status, read from the same classes and parser lists.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXED_REFUSALS, InvalidInputError, NotFoundError, RateLimitedError, ScopeRequiredError, UnknownSiteError } from '#domain/errors.ts';
import { KEY_REQUEST_ERRORS } from '#domain/auth.ts';
import { HOSTNAME_ERRORS } from '#domain/hostname.ts';
import { IMPORT_REQUEST_ERRORS } from '#domain/imports/create-request.ts';
import { REPORT_QUERY_ERRORS } from '#domain/reports/query.ts';
import { SETTINGS_ERRORS } from '#domain/site.ts';
import { errorResponse } from '#http/api.ts';
import { buildOpenApi } from '#http/openapi.ts';
import { STATUS_OF_KIND } from '#http/refusals.ts';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: { error: string } }> }> }> }>> };

/** Every `<status> <text>` the document lists as an error example. */
function documented(): Set<string> {
  const out = new Set<string>();
  for (const item of Object.values((buildOpenApi() as Doc).paths)) {
    for (const op of Object.values(item)) {
      for (const [status, res] of Object.entries(op.responses)) {
        for (const example of Object.values(res.content?.['application/json']?.examples ?? {})) out.add(`${status} ${example.value.error}`);
      }
    }
  }
  return out;
}

const PARSER_TEXTS = [...KEY_REQUEST_ERRORS, ...HOSTNAME_ERRORS, ...IMPORT_REQUEST_ERRORS, ...REPORT_QUERY_ERRORS, ...SETTINGS_ERRORS];

describe('refusals', () => {
  it('answers each refusal class with the status of its kind and its text, Retry-After where it says', () => {
    for (const Refusal of FIXED_REFUSALS) {
      const answer = errorResponse(new Refusal());
      expect([Refusal.name, answer.statusCode, JSON.parse(answer.body ?? '{}')]).toEqual([Refusal.name, STATUS_OF_KIND[Refusal.kind], { error: Refusal.text }]);
    }
    expect(errorResponse(new RateLimitedError()).headers?.['Retry-After']).toBe('1');
    expect(errorResponse(new UnknownSiteError()).headers?.['Retry-After']).toBeUndefined();
    expect(errorResponse(new ScopeRequiredError('manage'))).toMatchObject({ statusCode: 403, body: JSON.stringify({ error: 'scope manage required' }) });
    expect(errorResponse(new InvalidInputError('invalid filter'))).toMatchObject({ statusCode: 400, body: JSON.stringify({ error: 'invalid filter' }) });
  });

  it('documents every refusal class and every parser text under the status the edge answers it with', () => {
    const listed = documented();
    // An unmatched path has no operation to list it under: the document's description names it instead.
    const routed = FIXED_REFUSALS.filter((R) => R !== NotFoundError);
    expect((buildOpenApi() as { info: { description: string } }).info.description).toContain(JSON.stringify({ error: NotFoundError.text }));
    const expected = [
      ...routed.map((R) => `${STATUS_OF_KIND[R.kind]} ${R.text}`),
      ...['read', 'manage'].map((scope) => `403 ${ScopeRequiredError.textFor(scope)}`),
      ...PARSER_TEXTS.map((text) => `400 ${text}`),
    ];
    expect(expected.filter((e) => !listed.has(e))).toEqual([]);
  });
});

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('error texts in the code', () => {
  it('are written once each in functions/', () => {
    const texts = [...FIXED_REFUSALS.map((R) => R.text), ...PARSER_TEXTS];
    // Comments may name a text; only code counts.
    const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const files = sources('functions').map((path) => ({ path, text: code(readFileSync(path, 'utf8')) }));
    const written = texts.map((text) => {
      const literal = new RegExp(`(['"\`])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1`, 'g');
      return { text, places: files.flatMap(({ path, text: source }) => [...source.matchAll(literal)].map(() => path)) };
    });
    expect(written.filter((w) => w.places.length !== 1)).toEqual([]);
  });
});
