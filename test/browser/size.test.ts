/** latest.js budget (DESIGN.md §6): at most 2,048 bytes gzip, one minified ES2017 IIFE. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildTracker } from '../../functions/tracker/build.ts';

describe('latest.js build', () => {
  it('stays within 2,048 bytes gzip', async () => {
    const { code, gzipBytes } = await buildTracker();
    expect(gzipBytes).toBe(gzipSync(code).length);
    expect(gzipBytes).toBeLessThanOrEqual(2048);
  });

  it('is one minified IIFE without storage, cookies or randomUUID; its one storage call reads the opt-out', async () => {
    const { code } = await buildTracker();
    expect(code.trim().split('\n')).toHaveLength(1);
    expect(code).toMatch(/^"use strict";\(\(\)=>\{/);
    const optOutRead = '.localStorage.getItem("tinytrack_ignore")';
    expect(code.split(optOutRead)).toHaveLength(2);
    const rest = code.replace(optOutRead, '');
    for (const word of ['localStorage', 'sessionStorage', 'cookie', 'randomUUID', 'indexedDB', 'import ', 'export ', 'require(']) expect(rest, word).not.toContain(word);
  });
});
