import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '#domain/address-guard.ts';

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
  ])('allows public %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    // loopback
    ['127.0.0.1'],
    ['127.255.255.254'],
    ['::1'],
    // private
    ['10.0.0.1'],
    ['10.255.255.255'],
    ['172.16.0.1'],
    ['172.31.255.255'],
    ['192.168.0.1'],
    ['192.168.255.255'],
    // link-local and cloud metadata
    ['169.254.0.1'],
    ['169.254.169.254'],
    ['fe80::1'],
    ['fe80::1%eth0'],
    ['febf::1'],
    ['fd00:ec2::254'],
    // unique-local
    ['fc00::1'],
    ['fd12:3456:789a::1'],
    // unspecified
    ['0.0.0.0'],
    ['0.1.2.3'],
    ['::'],
    // CGNAT
    ['100.64.0.1'],
    ['100.127.255.255'],
    // multicast and broadcast
    ['224.0.0.1'],
    ['239.255.255.250'],
    ['ff02::1'],
    ['255.255.255.255'],
    // reserved / documentation / benchmarking
    ['240.0.0.1'],
    ['192.0.2.1'],
    ['198.51.100.7'],
    ['203.0.113.9'],
    ['198.18.0.1'],
    ['2001:db8::1'],
    // IPv4 embedded in IPv6
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:10.0.0.1'],
    ['::ffff:169.254.169.254'],
    ['::ffff:192.168.1.1'],
    ['::127.0.0.1'],
    ['::ffff:0:127.0.0.1'],
    ['64:ff9b::127.0.0.1'],
    ['2002:7f00:1::1'],
    // not a literal IP at all
    [''],
    ['localhost'],
    ['example.com'],
    ['127.1'],
    ['0x7f000001'],
    ['2130706433'],
    ['1.2.3.4.5'],
    ['256.1.1.1'],
  ])('refuses %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
});
