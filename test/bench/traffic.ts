/**
 * Real traffic for the collector benches: every beacon a new pageview with an
 * `id` of its own (as the tracker sends), spread over TRAFFIC_VISITORS
 * visitors (each its own user agent: the visitor hash and the user-agent
 * reading both see thousands of values), six paths, five referrers (one of
 * them none) and four timezones. The n-th beacon of a load is visitor
 * n mod TRAFFIC_VISITORS, so every visitor comes back again and again over a
 * long run, as a site's returning visitors do within a day.
 *
 * Visitors differ by user agent only, not by address: the bench's server
 * would need TRUST_PROXY and a forwarded header per beacon for that, and the
 * address enters only the visitor hash, which a distinct user agent already
 * makes distinct.
 */
import type autocannon from 'autocannon';

/** Distinct visitors (user agents) a load spreads its beacons over. */
export const TRAFFIC_VISITORS = 5_000;

const PATHS = ['/', '/pricing', '/blog/a', '/blog/b', '/docs/start', '/about'];
const REFERRERS = ['', 'https://www.google.com/', 'https://news.example.org/item', 'https://twitter.com/', 'https://duckduckgo.com/'];
const TIMEZONES = ['Europe/Amsterdam', 'America/New_York', 'Asia/Tokyo', 'Europe/Berlin'];

/** Four families of real user agents; a visitor's version number makes its string its own. */
const AGENTS: ((v: number) => string)[] = [
  (v) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.${v}.0 Safari/537.36`,
  (v) => `Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.${v}`,
  (v) => `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.${v} Safari/605.1.15`,
  (v) => `Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.${v} Mobile/15E148 Safari/604.1`,
];

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;

/** Visitor `v`'s user agent (v from 0). */
export const visitorAgent = (v: number): string => (AGENTS[v % AGENTS.length] as (v: number) => string)(Math.floor(v / AGENTS.length));

/** The n-th beacon of a load tagged `tag` (ids are `<tag>-<n>`, so a load's ids never repeat). */
export function trafficBeacon(hostname: string, tag: string, n: number): string {
  const visitor = n % TRAFFIC_VISITORS;
  return JSON.stringify({
    type: 'pageview',
    hostname,
    path: pick(PATHS, n),
    referrer: pick(REFERRERS, Math.floor(n / 7)),
    ua: visitorAgent(visitor),
    timezone: pick(TIMEZONES, visitor),
    https: true,
    unique: n < TRAFFIC_VISITORS,
    id: `${tag}-${n}`,
  });
}

let loads = 0;

/**
 * autocannon's request list for real traffic to `hostname`: one request whose
 * body is built anew for each beacon. A load's tag is unique in the process,
 * so two loads against one server never send the same id.
 */
export function trafficRequests(hostname: string): autocannon.Request[] {
  const tag = `${process.pid.toString(36)}${(loads++).toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/events',
      headers: { 'content-type': 'text/plain' },
      // autocannon hands a fresh copy of the request to each call.
      setupRequest: (request) => Object.assign(request, { body: trafficBeacon(hostname, tag, n++) }),
    },
  ];
}
