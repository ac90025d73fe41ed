import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { API_HOSTNAME_INVALID, WEB_HOSTNAME_INVALID, normalizeHostname } from '#domain/hostname.ts';
import { isNormalizedHostname } from '#domain/hostname-form.ts';

const ok = (hostname: string) => ({ ok: true, hostname });
const webInvalid = { ok: false, error: WEB_HOSTNAME_INVALID };
const label = (n: number) => 'a'.repeat(n);

describe('normalizeHostname: plain names', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['www.example.com', 'www.example.com'],
    ['WWW.Example.com', 'www.example.com'],
    ['a.b.c.d.example.co.uk', 'a.b.c.d.example.co.uk'],
    ['my-site.example', 'my-site.example'],
    ['123.example.com', '123.example.com'],
    ['a.io', 'a.io'],
    ['example.c0m', 'example.c0m'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeHostname(input)).toEqual(ok(expected));
  });

  it('keeps www and the apex distinct', () => {
    const apex = normalizeHostname('example.com');
    const www = normalizeHostname('https://www.example.com/');
    expect(apex).toEqual(ok('example.com'));
    expect(www).toEqual(ok('www.example.com'));
  });
});

describe('normalizeHostname: internationalized names', () => {
  it.each([
    ['bücher.de', 'xn--bcher-kva.de'],
    ['BÜCHER.DE', 'xn--bcher-kva.de'],
    ['Bücher.De', 'xn--bcher-kva.de'],
    ['пример.рф', 'xn--e1afmkfd.xn--p1ai'],
    ['ПРИМЕР.РФ', 'xn--e1afmkfd.xn--p1ai'],
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
    ['مثال.إختبار', 'xn--mgbh0fb.xn--kgbechtv'],
    ['ελληνικά.gr', 'xn--hxargifdar.gr'],
    ['श्री.भारत', 'xn--t2bl5a0c.xn--h2brj9c'],
    ['münchen.example.com', 'xn--mnchen-3ya.example.com'],
    // Nontransitional: ß is kept (encoded), not folded to "ss".
    ['faß.de', 'xn--fa-hia.de'],
    // Already-encoded input is a fixed point, so stored names re-normalize to themselves.
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['XN--BCHER-KVA.DE', 'xn--bcher-kva.de'],
    ['https://bücher.de/katalog?q=1', 'xn--bcher-kva.de'],
    // Full-width and ideographic separators are IDNA-mapped to ASCII.
    ['ｅｘａｍｐｌｅ.com', 'example.com'],
    ['example。com', 'example.com'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeHostname(input)).toEqual(ok(expected));
  });

  it.each([
    'café-xxx.example.com',
    'bücher.de',
    'пример.рф',
    '例え.テスト',
    'münchen.example.com',
  ])('%j matches what WHATWG URL produces', (input) => {
    expect(normalizeHostname(input)).toEqual(ok(new URL(`http://${input}`).hostname));
  });

  it.each([
    ['xn--abc.com'], // punycode that decodes to ASCII only
    ['xn--.com'],
    ['a\u200db.com'], // zero-width joiner outside its allowed context
    ['\u0301abc.com'], // label starting with a combining mark
    ['ab--cd.example.com'], // hyphens in positions 3 and 4 are reserved for IDNA prefixes
  ])('%j is rejected by IDNA checks', (input) => {
    expect(normalizeHostname(input)).toEqual(webInvalid);
  });
});

describe('normalizeHostname: schemes, paths, queries, fragments', () => {
  it.each([
    ['http://example.com', 'example.com'],
    ['https://example.com', 'example.com'],
    ['HTTPS://Example.com/', 'example.com'],
    ['ftp://example.com', 'example.com'],
    ['git+ssh://example.com', 'example.com'],
    ['example.com/some/path', 'example.com'],
    ['https://example.com/a/b.html', 'example.com'],
    ['example.com?utm_source=x', 'example.com'],
    ['example.com#top', 'example.com'],
    ['https://www.example.com/path?q=1#frag', 'www.example.com'],
    ['example.com.?x=1', 'example.com'],
    // URL parsers read a backslash as "/" in web URLs, so it ends the host too.
    ['example.com\\path', 'example.com'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeHostname(input)).toEqual(ok(expected));
  });

  it.each([
    ['https://'],
    ['https:///path'],
    ['/path/only'],
    ['?q=1'],
    ['#frag'],
  ])('%j has no host and is rejected', (input) => {
    expect(normalizeHostname(input)).toEqual(webInvalid);
  });
});

describe('normalizeHostname: whitespace and trailing dots', () => {
  it.each([
    ['  example.com  ', 'example.com'],
    ['\texample.com\n', 'example.com'],
    ['\u00a0example.com\u3000', 'example.com'],
    [' https://example.com/ ', 'example.com'],
    ['example.com.', 'example.com'],
    ['https://example.com./', 'example.com'],
    ['www.example.com.', 'www.example.com'],
    ['example.com\u3002', 'example.com'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeHostname(input)).toEqual(ok(expected));
  });

  it.each([
    ['example.com..'],
    ['.'],
    ['.example.com'],
    ['example..com'],
    ['exa mple.com'],
    ['example.com\tx'],
  ])('%j is rejected', (input) => {
    expect(normalizeHostname(input)).toEqual(webInvalid);
  });
});

describe('normalizeHostname: ports, userinfo and IP addresses', () => {
  it.each([
    ['example.com:3000'],
    ['example.com:80'],
    ['https://example.com:443/'],
    ['example.com:'],
    ['user@example.com'],
    ['https://user:pass@example.com/'],
    ['@example.com'],
    ['192.0.2.15'],
    ['http://192.0.2.15/'],
    ['127.0.0.1'],
    ['10.0.0.1.'],
    ['192.0.2.15:8080'],
    ['1.2.3.0x4'],
    ['0x7f.1'],
    ['2130706433'],
    ['[::1]'],
    ['http://[::1]:8080/'],
    ['::1'],
    ['2001:db8::1'],
    ['[2001:db8::1]'],
  ])('%j is rejected', (input) => {
    expect(normalizeHostname(input)).toEqual(webInvalid);
  });
});

describe('normalizeHostname: label and name structure', () => {
  it.each([
    ['localhost'],
    ['com'],
    ['example.123'],
    ['-example.com'],
    ['example-.com'],
    ['example.-com'],
    ['example.com-'],
    ['my_site.example.com'],
    ['_dmarc.example.com'],
    ['example.c_m'],
    ['exa$mple.com'],
    ['exa%6dple.com'],
  ])('%j is rejected', (input) => {
    expect(normalizeHostname(input)).toEqual(webInvalid);
  });

  it.each([
    [`${label(63)}.com`, true],
    [`${label(64)}.com`, false],
    [`example.${label(63)}`, true],
    [`example.${label(64)}`, false],
    // 63+1+63+1+63+1+61 = 253 characters
    [`${label(63)}.${label(63)}.${label(63)}.${label(61)}`, true],
    [`${label(63)}.${label(63)}.${label(63)}.${label(61)}.`, true],
    // 254 characters
    [`${label(63)}.${label(63)}.${label(63)}.${label(62)}`, false],
    [`${label(5000)}.com`, false],
  ])('length limits: %# (valid: %s)', (input, valid) => {
    const result = normalizeHostname(input);
    if (valid) expect(result).toEqual(ok(input.replace(/\.$/, '')));
    else expect(result).toEqual(webInvalid);
  });

  it('counts the encoded length of IDN labels', () => {
    // 55 varied letters fit in 63 characters but their punycode does not.
    const unicode = 'äöüßéèêëïîôûçñåøæ'.repeat(3) + 'äöüß';
    expect(unicode.length).toBeLessThanOrEqual(63);
    expect(normalizeHostname(`${unicode}.de`)).toEqual(webInvalid);
  });
});

describe('normalizeHostname: empty and non-string input', () => {
  it.each([
    [''],
    ['   '],
    ['\n\t'],
    [undefined],
    [null],
    [42],
    [true],
    [{ hostname: 'example.com' }],
    [['example.com']],
    [new String('example.com')],
  ])('%j is rejected', (input) => {
    expect(normalizeHostname(input)).toEqual(webInvalid);
  });
});

describe('normalizeHostname: kind', () => {
  it.each([
    ['example.com:3000', 'web', WEB_HOSTNAME_INVALID],
    ['example.com:3000', 'api', API_HOSTNAME_INVALID],
    ['', 'api', API_HOSTNAME_INVALID],
    [null, 'api', API_HOSTNAME_INVALID],
    ['192.0.2.15', 'api', API_HOSTNAME_INVALID],
    ['localhost', 'api', API_HOSTNAME_INVALID],
  ] as const)('%j as %s → %j', (input, kind, error) => {
    expect(normalizeHostname(input, kind)).toEqual({ ok: false, error });
  });

  it('defaults to the web message', () => {
    expect(normalizeHostname('nope')).toEqual(webInvalid);
  });

  it('normalizes the same way for api sites', () => {
    expect(normalizeHostname('https://API.Example.com:/', 'api')).toEqual({ ok: false, error: API_HOSTNAME_INVALID });
    expect(normalizeHostname('https://API.Example.com/v1/', 'api')).toEqual(ok('api.example.com'));
    expect(normalizeHostname('api.bücher.de', 'api')).toEqual(ok('api.xn--bcher-kva.de'));
  });

  it('error texts match spec part 7', () => {
    expect(WEB_HOSTNAME_INVALID).toBe('Enter a valid website address, such as example.com');
    expect(API_HOSTNAME_INVALID).toBe('Enter a valid API hostname, such as api.example.com');
  });
});

describe('normalizeHostname: names already in ASCII form', () => {
  it('answers as IDNA does (a leading soft hyphen, which IDNA ignores, forces the IDNA path)', () => {
    const label = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'abcxyz09-'), minLength: 0, maxLength: 8 }),
      fc.constantFrom('xn--', 'xn--bcher-kva', 'xn--zz', 'ab--c', 'a'.repeat(63), 'a'.repeat(64)),
    );
    const name = fc.array(label, { minLength: 1, maxLength: 6 }).map((labels) => labels.join('.'));
    fc.assert(
      fc.property(name, (n) => {
        expect(normalizeHostname(n)).toEqual(normalizeHostname(`\u00ad${n}`));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('isNormalizedHostname', () => {
  it('accepts names in the form normalizeHostname returns and nothing else', () => {
    for (const name of ['example.com', 'xn--bcher-kva.de', 'a-b.example', `${'a'.repeat(63)}.com`]) expect(isNormalizedHostname(name), name).toBe(true);
    const tooLong = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`;
    for (const name of ['a'.repeat(2044), tooLong, `${'a'.repeat(64)}.com`, 'Example.com', 'bücher.de', 'example', '1.2.3.4', 'a/b.com', '-a.com', 'example.com.']) {
      expect(isNormalizedHostname(name), name).toBe(false);
    }
  });
});
