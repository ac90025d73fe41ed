/**
 * The visitor's address behind `trustedProxies` proxies (TRUST_PROXY=<n>).
 * Each proxy appends the address it received the request from to
 * X-Forwarded-For, so the n-th entry from the right was written by the
 * outermost trusted proxy; everything left of it is the client's own claim
 * and is never read (reading the leftmost entry let anyone mint visitors).
 */
const unmapped = (address: string) => (address.startsWith('::ffff:') ? address.slice(7) : address);

export function clientIp(socketAddress: string, forwardedFor: string | undefined, trustedProxies: number): string {
  if (trustedProxies > 0 && forwardedFor) {
    const entries = forwardedFor.split(',').map((e) => e.trim()).filter((e) => e !== '');
    // A chain shorter than the proxies configured: its leftmost entry is the farthest one known.
    const entry = entries[Math.max(0, entries.length - trustedProxies)];
    if (entry) return unmapped(entry);
  }
  return unmapped(socketAddress);
}
