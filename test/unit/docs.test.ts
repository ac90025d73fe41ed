/** The documentation stands alone in a clone: no links outside the repository, and docs/api.md lists exactly the routes of the OpenAPI document. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '#http/openapi.ts';
import { VERIFICATION_ATTRIBUTE } from '#domain/page-scan.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && /\.(md|ts|mts|mjs|js|json|ya?ml|txt)$/.test(f) && !f.endsWith('package-lock.json'));
// Built from parts so that this file does not match itself.
const OUTSIDE = ['..', 'shared'].join('/');

describe('documentation', () => {
  it('has no tracked file that links to the sibling shared folder', () => {
    const offenders = tracked.filter((f) => existsSync(join(ROOT, f)) && readFileSync(join(ROOT, f), 'utf8').includes(OUTSIDE));
    expect(offenders).toEqual([]);
  });

  it('has README and docs links that resolve inside the repository', () => {
    const broken: string[] = [];
    for (const file of tracked.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/i.test(target as string)) continue;
        const path = resolve(ROOT, dirname(file), target as string);
        if (relative(ROOT, path).startsWith('..') || !existsSync(path)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("has a README section 'Track your site' naming every data- attribute and global of the tracker source, and the verification attribute", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Track your site\n');
    expect(start).toBeGreaterThan(-1);
    const end = readme.indexOf('\n## ', start + 1);
    const section = readme.slice(start, end === -1 ? undefined : end);
    const tracker = readFileSync(join(ROOT, 'functions/tracker/latest.ts'), 'utf8');
    const attributes = [...tracker.matchAll(/\battr\('([a-z-]+)'\)/g)].map((m) => `data-${m[1]}`);
    const globals = [...tracker.matchAll(/\bglobal\('([a-z_]+)'\)/g)].map((m) => `tt_${m[1]}`);
    expect(attributes).toEqual(expect.arrayContaining(['data-hostname', 'data-namespace', 'data-metadata-collector']));
    expect(globals).toEqual(expect.arrayContaining(['tt_event', 'tt_pageview', 'tt_metadata', 'tt_settings']));
    const missing = [...new Set([...attributes, VERIFICATION_ATTRIBUTE, ...globals])].filter((name) => !section.includes(`\`${name}`));
    expect(missing).toEqual([]);
    expect(section).toContain('<script async src="http://127.0.0.1:8787/latest.js"></script>');
    expect(section).toMatch(/data-hostname="[a-z.]+"><\/script>/);
  });

  it('lists in docs/api.md every method and path of the OpenAPI document, and nothing else', () => {
    const doc = buildOpenApi() as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const page = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const listed = [...page.matchAll(/`((?:GET|HEAD|POST|PUT|PATCH|DELETE) \/[^`\s]*)`/g)].map((m) => m[1] as string);
    expect([...new Set(listed)].sort()).toEqual([...new Set(documented)].sort());
  });
});
