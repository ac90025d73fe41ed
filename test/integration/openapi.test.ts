/** The served OpenAPI document: valid for swagger-parser and Redocly's recommended rules, with every route and the spec's error texts. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#http/routes.ts';
import { INVALID_KEY, KEYS_FORBIDDEN, SIGN_IN_REQUIRED, UNKNOWN_SITE, UNVERIFIED_OWNER, INTERNAL_ERROR } from '#domain/errors.ts';
import { API_HOSTNAME_INVALID, WEB_HOSTNAME_INVALID } from '#domain/hostname.ts';
import {
  API_KEY_REQUIRED,
  INVALID_DATE_RANGE,
  SOURCE_HOSTNAME_INVALID,
  SOURCE_HOSTNAME_REQUIRED,
  UNKNOWN_IMPORT_SOURCE,
  USER_ID_REQUIRED,
} from '#domain/imports/create-request.ts';
import { DAILY_LIMIT_REACHED, IMPORT_ALREADY_ACTIVE, NOT_CANCELLABLE, NOT_RETRYABLE, UNKNOWN_IMPORT } from '#domain/imports/job.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const run = promisify(execFile);

interface Operation {
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: { error: string } }> }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

let svc: TestService;
let doc: Document;
beforeAll(async () => {
  svc = await startTestService();
  const r = await svc.req('GET', '/api/openapi.json');
  expect(r.status).toBe(200);
  doc = r.json;
});
afterAll(() => svc.stop());

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

/** `redocly lint` with the recommended rules on the document, its problems as JSON. */
async function redoclyLint(document: unknown): Promise<LintProblem[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tt-openapi-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
    writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const args = ['lint', '--config', join(dir, 'redocly.yaml'), '--format', 'json', join(dir, 'openapi.json')];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    // A lint error exits non-zero; the report is on stdout either way.
    const stdout = await run('node_modules/.bin/redocly', args, { env }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? '',
    );
    return (JSON.parse(stdout) as { problems: LintProblem[] }).problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `<status> <text>` for every error example of every operation. */
function documentedErrors(): Set<string> {
  const out = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const [status, res] of Object.entries(op.responses)) {
        for (const example of Object.values(res.content?.['application/json']?.examples ?? {})) out.add(`${status} ${example.value.error}`);
      }
    }
  }
  return out;
}

describe('GET /api/openapi.json', () => {
  it('passes swagger-parser validation, every $ref resolving', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as unknown as Parameters<typeof SwaggerParser.validate>[0])).resolves.toBeTruthy();
  });

  it('has no errors under Redocly lint with the recommended rules', async () => {
    const problems = await redoclyLint(doc);
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('keeps shared schemas under components/schemas, referred to as #/components/schemas/…', () => {
    const text = JSON.stringify(doc);
    expect(text.match(/\$defs|starts_with/g)).toBeNull();
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) expect(ref).toMatch(/^#\/components\/schemas\/\w+$/);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Error', 'Site', 'CollectorPayload', 'ImportJob']));
  });

  it('describes every route with its path and query parameters', () => {
    for (const route of routes) {
      for (const m of route.method === 'ANY' ? ['get', 'head'] : [route.method.toLowerCase()]) {
        const op = doc.paths[route.path]?.[m];
        expect(op?.summary, `${m} ${route.path}`).toEqual(expect.any(String));
        const names = (op?.parameters ?? []).map((p) => `${p.in} ${p.name}`);
        for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) expect(names, route.path).toContain(`path ${name}`);
        for (const name of Object.keys(route.query ?? {})) expect(names, route.path).toContain(`query ${name}`);
        if (route.path.endsWith('/breakdown')) expect(op?.parameters?.find((p) => p.name === 'dim')).toMatchObject({ in: 'query', required: true });
        expect(Object.keys(op?.responses ?? {}), route.path).toEqual(expect.arrayContaining(Object.keys(route.responses)));
      }
    }
  });

  it('lists the error texts of the spec and the code as examples under their status', () => {
    const expected = [
      `401 ${SIGN_IN_REQUIRED}`,
      `401 ${INVALID_KEY}`,
      '403 scope read required',
      '403 scope manage required',
      `403 ${KEYS_FORBIDDEN}`,
      `403 ${UNVERIFIED_OWNER}`,
      `404 ${UNKNOWN_SITE}`,
      '429 rate limited, retry in 1s',
      `400 ${WEB_HOSTNAME_INVALID}`,
      `400 ${API_HOSTNAME_INVALID}`,
      '400 site limit reached',
      '400 kind must be web or api',
      ...['invalid settings', 'invalid display name', 'invalid sharing setting', 'invalid reports mode', 'invalid pin setting'].map((t) => `400 ${t}`),
      '400 verify domain ownership before making the site public',
      ...['invalid range', 'invalid filter', 'unknown dimension', 'invalid timezone'].map((t) => `400 ${t}`),
      ...[INVALID_DATE_RANGE, UNKNOWN_IMPORT_SOURCE, USER_ID_REQUIRED, API_KEY_REQUIRED, SOURCE_HOSTNAME_REQUIRED, SOURCE_HOSTNAME_INVALID].map((t) => `400 ${t}`),
      '409 hostname is registered to another account',
      `409 ${IMPORT_ALREADY_ACTIVE}`,
      `409 ${NOT_CANCELLABLE}`,
      `409 ${NOT_RETRYABLE}`,
      `429 ${DAILY_LIMIT_REACHED}`,
      `404 ${UNKNOWN_IMPORT}`,
      '400 invalid label',
      '400 invalid scopes',
      '400 management key limit reached',
      '404 unknown key',
      '403 only a management key can revoke itself',
      `500 ${INTERNAL_ERROR}`,
    ];
    const documented = documentedErrors();
    expect(expected.filter((e) => !documented.has(e))).toEqual([]);
  });
});
