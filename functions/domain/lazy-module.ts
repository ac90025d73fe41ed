/**
 * A package loaded on first use instead of at start: its tables cost start-up
 * time that only rare inputs need (IDNA for non-ASCII hostnames, the HTML
 * parser for verification runs). Lambda bundles leave these packages out of
 * the main file and ship each, minified, in node_modules beside it
 * (lib/node-function.ts LAZY_MODULES), where this require finds it.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}
