/** SSRF guard for site verification (DESIGN §3): decides whether an IP address may be fetched. */
import ipaddr from 'ipaddr.js';

// Deprecated IPv4-compatible IPv6 (::a.b.c.d); ipaddr.js calls it unicast, but it embeds IPv4 targets.
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
// AWS EC2 instance metadata over IPv6; also inside fc00::/7, listed explicitly so it never slips through.
const AWS_METADATA_V6 = ipaddr.IPv6.parse('fd00:ec2::254');

/**
 * True only for globally routable unicast addresses. Allow-list by design: any range ipaddr.js knows
 * as special (loopback, private, link-local, CGNAT, multicast, reserved, NAT64, 6to4, …) is refused,
 * as is anything that does not parse.
 */
export function isPublicAddress(ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Only canonical literals: ipaddr's IPv4 parser also accepts forms like "0x7f.1" or "2130706433".
    const literal = ip.trim();
    if (!ipaddr.IPv6.isValid(literal) && !ipaddr.IPv4.isValidFourPartDecimal(literal)) return false;
    // process() unmaps ::ffff:a.b.c.d so IPv4-mapped addresses get the IPv4 verdict.
    addr = ipaddr.process(literal);
  } catch {
    return false;
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.match(IPV4_COMPATIBLE)) return false;
    if (v6.toNormalizedString() === AWS_METADATA_V6.toNormalizedString()) return false;
  }
  return addr.range() === 'unicast';
}
