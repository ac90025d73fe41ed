import { describe, expect, it } from 'vitest';
import { parseQueryString } from '#http/query-string.ts';

/** What the handlers read before: URLSearchParams, then one value per name (the last). */
const viaUrlSearchParams = (search: string) => Object.entries(Object.fromEntries(new URLSearchParams(search)));

describe('parseQueryString', () => {
  it('decodes every name and value as URLSearchParams does, the last of a repeated name winning', () => {
    const cases = [
      '', 'a=1', 'a=1&a=2&b=3', '&&a=1&&', '=v', 'k', 'k=', 'a=b=c', 'a+b=c+d', 'a=%2B%20x', 'path=%2Fpricing',
      // Malformed escapes and bytes that are not UTF-8: kept or replaced, never thrown.
      'a=%zz', 'a=%', 'a=%E2%82', 'a=%ED%A0%80', 'x=%FF%FE', 'a=%25', 'q=%F0%9F%98%80', 'a=%C3%A9',
      // Node hands the request target over as latin1 characters.
      'a=\u00c3\u00a9', 'a=\u00c3%A9',
    ];
    for (const search of cases) expect(Object.entries(parseQueryString(search)), search).toEqual(viaUrlSearchParams(search));
  });

  it('agrees with URLSearchParams on random strings of the characters that matter', () => {
    const alphabet = ['a', 'b', '=', '&', '+', '%', '2', 'B', 'F', 'E', '8', 'C', '3', 'A', '9', '\u00e9', ' ', '0', 'D'];
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    for (let i = 0; i < 20_000; i++) {
      const search = Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(Object.entries(parseQueryString(search)), search).toEqual(viaUrlSearchParams(search));
    }
  });

  it('holds names such as __proto__ and constructor as plain names', () => {
    const query = parseQueryString('__proto__=x&hostname=a.example');
    expect(Object.entries(query)).toEqual([['__proto__', 'x'], ['hostname', 'a.example']]);
    expect(parseQueryString('').constructor).toBeUndefined();
  });
});
