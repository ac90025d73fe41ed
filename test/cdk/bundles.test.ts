/**
 * Each Lambda bundle's own code (everything but the AWS SDK, minified, as
 * lib/node-function.ts builds it) within its budget (lib/bundles.ts), so no
 * dependency creeps back into a function that does not use it. Import times
 * are measured by `npm run bench`, not here.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '#http/openapi.ts';
import { buildTracker } from '#tracker/build.ts';
import { COLLECTOR_BUDGET, HTTP_GROUP_BUDGET, lambdaBundles } from '../../lib/bundles.ts';
import { lambdaBuildOptions } from '../../lib/node-function.ts';

const texts = { trackerScript: (await buildTracker()).code, apiDocument: JSON.stringify(buildOpenApi()) };
const bundles = lambdaBundles(texts);

describe('Lambda bundles', () => {
  it('budgets every HTTP group, the collector and ingest at their own lower budget', () => {
    const budgets = Object.fromEntries(bundles.filter((b) => b.name.startsWith('http/')).map((b) => [b.name, b.budget]));
    expect(budgets).toEqual({
      'http/meta': HTTP_GROUP_BUDGET,
      'http/account': HTTP_GROUP_BUDGET,
      'http/sites': HTTP_GROUP_BUDGET,
      'http/reports': HTTP_GROUP_BUDGET,
      'http/collector': COLLECTOR_BUDGET,
      'http/imports': HTTP_GROUP_BUDGET,
      'http/ingest': COLLECTOR_BUDGET,
      'http/alerts': HTTP_GROUP_BUDGET,
      'http/goals': HTTP_GROUP_BUDGET,
      'http/search': HTTP_GROUP_BUDGET,
      'http/live': HTTP_GROUP_BUDGET,
      'http/digests': HTTP_GROUP_BUDGET,
      'http/crawlers': HTTP_GROUP_BUDGET,
      'http/data': HTTP_GROUP_BUDGET,
      'http/export': HTTP_GROUP_BUDGET,
    });
  });

  for (const bundle of bundles.filter((b) => b.budget !== null)) {
    it(`keeps ${bundle.name}'s own code within ${(bundle.budget as number) / 1024} KiB`, async () => {
      const result = await build({ ...lambdaBuildOptions(bundle.entry, bundle.define, false), write: false, logLevel: 'silent' });
      const bytes = result.outputFiles.reduce((n, f) => n + f.contents.length, 0);
      expect(bytes, bundle.name).toBeLessThanOrEqual(bundle.budget as number);
    });
  }

  it('leaves the schema library out of the meta group: the API description is inlined as JSON', async () => {
    const meta = bundles.find((b) => b.name === 'http/meta');
    const result = await build({ ...lambdaBuildOptions(meta!.entry, meta!.define, false), write: false, metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((f) => f.includes('functions/http/openapi.ts') || f.includes('functions/http/schemas.ts'))).toEqual([]);
    expect(inputs.filter((f) => /node_modules\/zod\/v4\/classic\//.test(f))).toEqual([]);
  });
});
