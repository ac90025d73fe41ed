/** The served OpenAPI document: valid for swagger-parser and Redocly's recommended rules, with every route and the spec's error texts. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#http/routes.ts';
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

  it("lists the spec's and the service's error texts as examples under their status", () => {
    // Written out as the spec words them, not read from the code: the document must say what clients were promised.
    const expected = [
      '401 sign in required',
      '401 invalid or revoked management key',
      '403 scope read required',
      '403 scope manage required',
      '403 management keys cannot call this endpoint',
      '403 Install your tracking script to verify this site first',
      '404 unknown site',
      '429 rate limited, retry in 1s',
      '400 Enter a valid website address, such as example.com',
      '400 Enter a valid API hostname, such as api.example.com',
      '400 site limit reached',
      '400 kind must be web or api',
      ...['invalid settings', 'invalid display name', 'invalid sharing setting', 'invalid reports mode', 'invalid pin setting'].map((t) => `400 ${t}`),
      '400 verify domain ownership before making the site public',
      ...['invalid range', 'invalid filter', 'unknown dimension', 'invalid timezone'].map((t) => `400 ${t}`),
      ...['invalid date range', 'unknown import source', 'User ID is required', 'API key is required', 'Source hostname is required', 'Source hostname is invalid'].map((t) => `400 ${t}`),
      '409 hostname is registered to another account',
      '409 an import is already active for this site',
      '409 only a queued or running import can be cancelled',
      '409 only a failed or cancelled import can be retried',
      '429 daily import limit reached',
      '404 unknown import',
      '400 invalid label',
      '400 invalid scopes',
      '400 management key limit reached',
      '404 unknown key',
      '403 only a management key can revoke itself',
      '500 internal error',
    ];
    const documented = documentedErrors();
    expect(expected.filter((e) => !documented.has(e))).toEqual([]);
  });
});
