/** The client address behind TRUST_PROXY=<n> proxies: X-Forwarded-For walked from the right. */
import { describe, expect, it } from 'vitest';
import { clientIp } from '#domain/client-ip.ts';

const SOCKET = '10.0.0.2';

describe('clientIp', () => {
  it('is the socket address with no proxies trusted, whatever the header says', () => {
    expect(clientIp(SOCKET, '203.0.113.1', 0)).toBe(SOCKET);
    expect(clientIp(SOCKET, undefined, 0)).toBe(SOCKET);
  });

  it('is the n-th entry from the right with n proxies trusted', () => {
    const chain = '198.51.100.66, 203.0.113.1, 10.0.0.1';
    expect(clientIp(SOCKET, chain, 1)).toBe('10.0.0.1');
    expect(clientIp(SOCKET, chain, 2)).toBe('203.0.113.1');
    expect(clientIp(SOCKET, chain, 3)).toBe('198.51.100.66');
  });

  it('never reads what the client put left of the entries the trusted proxies wrote', () => {
    for (const spoofed of ['1.1.1.1', '1.1.1.1, 2.2.2.2', 'not-an-ip', '', ', ,']) {
      expect(clientIp(SOCKET, `${spoofed}, 203.0.113.1`, 1)).toBe('203.0.113.1');
      expect(clientIp(SOCKET, `${spoofed}, 203.0.113.1, 10.0.0.1`, 2)).toBe('203.0.113.1');
    }
  });

  it('takes the leftmost entry when the chain is shorter than the proxies trusted', () => {
    expect(clientIp(SOCKET, '203.0.113.1, 10.0.0.1', 3)).toBe('203.0.113.1');
    expect(clientIp(SOCKET, '203.0.113.1', 5)).toBe('203.0.113.1');
  });

  it('falls back to the socket address without a usable header', () => {
    for (const header of [undefined, '', ' , ']) expect(clientIp(SOCKET, header, 1)).toBe(SOCKET);
  });

  it('unmaps IPv4-mapped IPv6 addresses, from the socket and from the header; keeps other IPv6 as is', () => {
    expect(clientIp('::ffff:10.0.0.2', undefined, 0)).toBe('10.0.0.2');
    expect(clientIp(SOCKET, '::ffff:203.0.113.1', 1)).toBe('203.0.113.1');
    expect(clientIp(SOCKET, '2001:db8::1', 1)).toBe('2001:db8::1');
  });
});
