/**
 * docs/privacy.md proves its claims by naming code and tests: every file it
 * names exists, and every `path` › “test name” is a test of that name in
 * that file. A renamed or deleted test breaks the document, not silently.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const doc = readFileSync('docs/privacy.md', 'utf8');
const PATH = /^(functions|lib|test|bin|docs)\/[\w./-]+$/;
const paths = [...doc.matchAll(/`([^`\s]+)`/g)].map((m) => m[1] as string).filter((p) => PATH.test(p));
const references = [...doc.matchAll(/`([^`]+)`\s*›\s*“([^”]+)”/g)].map((m) => ({ file: m[1] as string, name: (m[2] as string).replace(/\s+/g, ' ') }));

/** The titles of a test file's `it(…)` calls, quotes unescaped. */
function testTitles(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/\bit\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)].map((m) => (m[2] as string).replace(/\\(.)/g, '$1'));
}

describe('docs/privacy.md', () => {
  it('names files that exist', () => {
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((p) => !existsSync(p))).toEqual([]);
  });

  it('names tests that exist, each in the file it says', () => {
    expect(references.length).toBeGreaterThan(10);
    const missing = references.filter(({ file, name }) => !existsSync(file) || !testTitles(file).includes(name));
    expect(missing).toEqual([]);
  });
});
