/**
 * Builds latest.js from latest.ts in memory (esbuild: ES2017, IIFE, minified).
 * The server calls buildTracker() once at start and serves `code`.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const trackerSourcePath = fileURLToPath(new URL('./latest.ts', import.meta.url));

export interface BuiltTracker {
  code: string;
  gzipBytes: number;
}

export async function buildTracker(): Promise<BuiltTracker> {
  const result = await build({
    entryPoints: [trackerSourcePath],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2017',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('tracker build produced no output');
  const code = file.text;
  return { code, gzipBytes: gzipSync(code).length };
}
