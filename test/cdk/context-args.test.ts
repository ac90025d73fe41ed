import { describe, expect, it } from 'vitest';
import { contextArgs } from '../../lib/context.ts';

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
