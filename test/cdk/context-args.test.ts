/**
 * The app's context as bin/app.ts assembles it for `npm run synth`: `-c`
 * pairs, cdk.json, and cdk.context.json, where the README keeps an
 * operator's settings so `cdk deploy` and `cdk destroy` need no flags; and
 * the stack name those settings choose.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterEach, describe, expect, it } from 'vitest';
import { appContext, contextArgs, DEFAULT_STACK_NAME, stackNameFromContext } from '../../lib/context.ts';

describe('contextArgs (npm run synth -- -c …)', () => {
  it('reads -c and --context pairs, values holding "=" whole, and ignores other arguments', () => {
    expect(contextArgs(['-c', 'eventStore=clickhouse', '--context', 'clickhouseUrl=https://h:8443/?a=b', '--verbose'])).toEqual({
      eventStore: 'clickhouse',
      clickhouseUrl: 'https://h:8443/?a=b',
    });
  });

  it('refuses a pair without a key or "="', () => {
    expect(() => contextArgs(['-c', 'eventStore'])).toThrow('context needs key=value, got "eventStore"');
    expect(() => contextArgs(['-c', '=x'])).toThrow('context needs key=value');
    expect(() => contextArgs(['-c'])).toThrow('context needs key=value, got ""');
  });
});

describe('appContext (settings given once)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const project = (files: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), 'tt-context-'));
    dirs.push(dir);
    for (const [name, json] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(json));
    return dir;
  };

  it('reads the settings kept in cdk.context.json, so a synth needs no flags', () => {
    const dir = project({
      'cdk.json': { app: 'npx tsx bin/app.ts', context: { '@aws-cdk/core:checkSecretUsage': true } },
      'cdk.context.json': { stackName: 'Staging', clickhouseUrl: 'https://h:8443', writerMaxConcurrency: 4, dashboard: false },
    });
    expect(appContext(dir, [])).toEqual({ '@aws-cdk/core:checkSecretUsage': true, stackName: 'Staging', clickhouseUrl: 'https://h:8443', writerMaxConcurrency: 4, dashboard: false });
  });

  it('lets -c win over cdk.json and cdk.json over cdk.context.json, as the CDK CLI does', () => {
    const dir = project({ 'cdk.json': { context: { a: 'cdk.json', b: 'cdk.json' } }, 'cdk.context.json': { a: 'kept', b: 'kept', c: 'kept' } });
    expect(appContext(dir, ['-c', 'a=flag'])).toEqual({ a: 'flag', b: 'cdk.json', c: 'kept' });
  });

  it('needs neither file', () => {
    expect(appContext(project({}), ['-c', 'x=1'])).toEqual({ x: '1' });
  });
});

describe('stackNameFromContext', () => {
  const nameOf = (context: Record<string, unknown>) => stackNameFromContext(new App({ context }));

  it('is Tinytrack by default, and the name given otherwise', () => {
    expect([nameOf({}), nameOf({ stackName: 'Tinytrack-staging' })]).toEqual([DEFAULT_STACK_NAME, 'Tinytrack-staging']);
    expect(DEFAULT_STACK_NAME).toBe('Tinytrack');
  });

  it('refuses a name CloudFormation would', () => {
    for (const bad of ['1tinytrack', 'tiny_track', 'tiny track', 'x'.repeat(129)]) expect(() => nameOf({ stackName: bad }), bad).toThrow(/context stackName must start with a letter/);
  });
});
