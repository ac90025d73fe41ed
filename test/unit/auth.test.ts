import { describe, expect, it } from 'vitest';
import { hasScope, hashSecret, isManagementKeyFormat, newManagementKeySecret, parseAuthorization, parseScopes } from '#domain/auth.ts';

describe('parseAuthorization', () => {
  it.each([
    [undefined, { kind: 'none' }],
    ['', { kind: 'none' }],
    ['Bearer abc.def.ghi', { kind: 'bearer', token: 'abc.def.ghi' }],
    ['bearer tt_mk_x', { kind: 'management_key', secret: 'tt_mk_x' }],
    ['Basic dXNlcjpwYXNz', { kind: 'bearer', token: '' }],
    ['Bearer', { kind: 'bearer', token: '' }],
  ])('reads %j', (header, expected) => {
    expect(parseAuthorization(header)).toEqual(expected);
  });
});

describe('management key secrets', () => {
  it('look like tt_mk_ + 48 lowercase hex and differ each time', () => {
    const a = newManagementKeySecret();
    expect(a).toMatch(/^tt_mk_[0-9a-f]{48}$/);
    expect(isManagementKeyFormat(a)).toBe(true);
    expect(newManagementKeySecret()).not.toBe(a);
  });

  it.each(['tt_mk_', `tt_mk_${'A'.repeat(48)}`, `tt_mk_${'a'.repeat(47)}`, `tt_${'a'.repeat(48)}`, `tt_mk_${'a'.repeat(49)}`])('refuses %s', (s) => {
    expect(isManagementKeyFormat(s)).toBe(false);
  });

  it('hashes with SHA-256 as hex, a different secret to a different hash', () => {
    const h = hashSecret('tt_mk_abc');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret('tt_mk_abc')).toBe(h);
    expect(hashSecret('tt_mk_abd')).not.toBe(h);
  });
});

describe('scopes', () => {
  it('do not include each other; ID tokens may do everything', () => {
    const key = { kind: 'key' as const, uid: 'u', keyId: 'k', scopes: ['manage' as const], secretHash: 'h' };
    expect(hasScope(key, 'manage')).toBe(true);
    expect(hasScope(key, 'read')).toBe(false);
    expect(hasScope(key, 'ingest')).toBe(false);
    expect(hasScope({ kind: 'user', uid: 'u' }, 'ingest')).toBe(true);
  });

  it.each([
    [['read'], ['read']],
    [['ingest', 'read', 'ingest'], ['read', 'ingest']],
    [[], null],
    [['admin'], null],
    ['read', null],
    [[1], null],
    [undefined, null],
  ])('parses %j', (input, expected) => {
    expect(parseScopes(input)).toEqual(expected);
  });
});
