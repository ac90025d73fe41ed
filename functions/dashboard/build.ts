/**
 * Builds the dashboard (ui/main.tsx: Preact and uPlot) with esbuild in
 * memory, as the tracker is built: `npm start` serves the result at `/`, and
 * the stack uploads the same files to its bucket. Asset names carry a content
 * hash, so they are cached for good and index.html never is.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { worldMap } from './world-map.ts';

export const dashboardEntryPath = fileURLToPath(new URL('./ui/main.tsx', import.meta.url));

export interface DashboardFile {
  body: Buffer;
  contentType: string;
  /** Hashed assets are immutable; the page is revalidated every time. */
  immutable: boolean;
}

export interface BuiltDashboard {
  /** By URL path: /dashboard/app-<hash>.js, /dashboard/app-<hash>.css, /dashboard/world-<hash>.json (the countries map) and /index.html. */
  files: Map<string, DashboardFile>;
  /** The page every dashboard path answers with. */
  index: DashboardFile;
  /** All JavaScript gzipped (DESIGN.md §6: at most 100 KB). */
  jsGzipBytes: number;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

function page(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>tinytrack</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${style}">
<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading…</p></div>
<noscript>The tinytrack dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}

/** The countries map as a hashed JSON asset; the page learns its path from the bundle (`WORLD_MAP_URL`). */
function worldMapAsset(): [string, DashboardFile] {
  const body = Buffer.from(JSON.stringify(worldMap()));
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 10);
  return [`/dashboard/world-${hash}.json`, { body, contentType: 'application/json', immutable: true }];
}

export async function buildDashboard(): Promise<BuiltDashboard> {
  const [mapPath, mapFile] = worldMapAsset();
  const result = await build({
    define: { WORLD_MAP_URL: JSON.stringify(mapPath) },
    entryPoints: [dashboardEntryPath],
    bundle: true,
    write: false,
    outdir: '/dashboard',
    entryNames: 'app-[hash]',
    format: 'esm',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'silent',
  });
  const files = new Map<string, DashboardFile>([[mapPath, mapFile]]);
  let script = '';
  let style = '';
  let jsGzipBytes = 0;
  for (const file of result.outputFiles) {
    const path = file.path.slice(file.path.indexOf('/dashboard/'));
    const ext = path.slice(path.lastIndexOf('.'));
    const contentType = TYPES[ext];
    if (!contentType) continue;
    files.set(path, { body: Buffer.from(file.contents), contentType, immutable: true });
    if (ext === '.js') {
      script = path;
      jsGzipBytes += gzipSync(file.contents).length;
    } else style = path;
  }
  if (!script || !style) throw new Error('dashboard build produced no script or style');
  const index: DashboardFile = { body: Buffer.from(page(script, style)), contentType: 'text/html; charset=utf-8', immutable: false };
  files.set('/index.html', index);
  return { files, index, jsGzipBytes };
}

/** Writes the built files under `dir` (the stack's bucket deployment reads them from there). */
export async function writeDashboard(dir: string): Promise<BuiltDashboard> {
  const built = await buildDashboard();
  for (const [path, file] of built.files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.body);
  }
  return built;
}
