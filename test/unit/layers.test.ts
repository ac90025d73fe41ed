/**
 * The layer rules of `.dependency-cruiser.cjs` (run by `npm run lint`): a
 * fixture tree with one back arrow per rule fails each of them, and the
 * service's own tree passes.
 */
import { describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const config = createRequire(import.meta.url)(`${root}.dependency-cruiser.cjs`) as { forbidden: unknown[]; options: Record<string, unknown> };

async function violations(baseDir: string, paths: string[]): Promise<string[]> {
  const { options } = config;
  const result = await cruise(paths, { ...options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
}

describe('layers', () => {
  it('fails every back arrow of the fixture tree, each under its rule', async () => {
    const found = await violations(`${root}test/fixtures/layers`, ['functions']);
    expect(found).toEqual(
      expect.arrayContaining([
        'domain-is-pure: functions/domain/rule.ts → functions/adapters/store/store.ts',
        'domain-names-ports-as-types: functions/domain/use-case.ts → functions/ports/queue.ts',
        'ports-name-domain-types-only: functions/ports/store.ts → functions/adapters/store/store.ts',
        'adapters-below-runtimes: functions/adapters/store/store.ts → functions/http/handler.ts',
        'reports-over-ports: functions/reports/report.ts → functions/adapters/store/store.ts',
        'writers-below-reports: functions/adapters/store/schema.ts → functions/reports/other.ts',
      ]),
    );
    expect(found.filter((v) => v.startsWith('no-circular:'))).not.toEqual([]);
    expect(found.filter((v) => v.includes('typed-use-case'))).toEqual([]);
  }, 60_000);

  it('finds no back arrow in the service', async () => {
    expect(await violations(root, ['functions', 'lib', 'bin'])).toEqual([]);
  }, 60_000);
});
