/**
 * Recent collector drops, counted per hostname as the beacon sent it, so that
 * an owner's setup check (GET …/setup) can say why beacons for the site, its
 * www./apex twin, the site with a port, or a page on localhost stored nothing.
 * Counts only: no path, IP, user agent or time of a single beacon is kept.
 */
import type { DropReason } from './ingest/drop.ts';
import { normalizeHostname } from './hostname.ts';
import { keyBytes } from './ttl-cache.ts';

/** One line of the setup check: beacons with this hostname dropped for this reason. */
export interface DropCount {
  /** The hostname as the beacons sent it, lowercased. */
  hostname: string;
  reason: DropReason;
  count: number;
  /** The first drop counted: a count restarts once this is DROP_WINDOW_MS old. */
  first_at: string;
  last_at: string;
}

interface Tally {
  hostname: string;
  reason: DropReason;
  count: number;
  first: number;
  last: number;
  bytes: number;
}

/** A tally restarts once its first drop is this old, so counts cover at most a day. */
export const DROP_WINDOW_MS = 24 * 60 * 60_000;
/** Drops from local pages (anyone's on this instance) are shown this long. */
export const LOCAL_DROP_WINDOW_MS = 60 * 60_000;

/**
 * Bounded per-instance counters keyed by (reason, hostname as sent). One Map
 * read and at most one insert per dropped beacon; all parsing of the
 * hostname waits for a lookup. Oldest-inserted entries go first when full.
 */
export class DropCounts {
  private readonly tallies = new Map<string, Tally>();
  private heldBytes = 0;

  constructor(
    readonly maxEntries: number,
    private readonly now: () => number,
    readonly maxBytes: number,
    readonly windowMs = DROP_WINDOW_MS,
  ) {}

  get size(): number {
    return this.tallies.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  record(sentHostname: string, reason: DropReason): void {
    const now = this.now();
    const hostname = sentHostname.toLowerCase();
    const key = `${reason} ${hostname}`;
    const tally = this.tallies.get(key);
    if (tally) {
      if (now - tally.first >= this.windowMs) {
        tally.count = 0;
        tally.first = now;
      }
      tally.count++;
      tally.last = now;
      return;
    }
    // The key and the hostname held apart from it.
    const bytes = keyBytes(key) + 2 * hostname.length;
    if (bytes > this.maxBytes) return;
    while (this.tallies.size >= this.maxEntries || this.heldBytes + bytes > this.maxBytes) {
      const oldest = this.tallies.keys().next();
      if (oldest.done) break;
      this.heldBytes -= this.tallies.get(oldest.value)?.bytes ?? 0;
      this.tallies.delete(oldest.value);
    }
    this.tallies.set(key, { hostname, reason, count: 1, first: now, last: now, bytes });
    this.heldBytes += bytes;
  }

  /** Tallies last seen within `withinMs` whose site (siteOfSentHostname) passes `match`; most frequent first. */
  find(match: (site: string) => boolean, withinMs: number): DropCount[] {
    const since = this.now() - withinMs;
    const found: DropCount[] = [];
    for (const t of this.tallies.values()) {
      if (t.last < since || !match(siteOfSentHostname(t.hostname))) continue;
      found.push({ hostname: t.hostname, reason: t.reason, count: t.count, first_at: iso(t.first), last_at: iso(t.last) });
    }
    return found.sort((a, b) => b.count - a.count || a.hostname.localeCompare(b.hostname) || a.reason.localeCompare(b.reason));
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
const AUTHORITY_END = /[/?#\\]/;
// `host:port` or `[v6]:port`; a bare `::1` has no port to take off.
const HOST_PORT = /^(\[[^\]]*\]|[^:]*):\d*$/;

/** The host of a sent hostname without scheme, path, port or trailing dot (lowercase input), and whether it had a port. */
function splitSent(sent: string): { host: string; port: boolean } {
  const rest = sent.trim().replace(SCHEME, '');
  const end = rest.search(AUTHORITY_END);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const bare = HOST_PORT.exec(authority)?.[1];
  return { host: (bare ?? authority).replace(/\.$/, ''), port: bare !== undefined };
}

/** The site a sent hostname means: its registrable form when it has one, else its bare host (`localhost`, `127.0.0.1`). */
export function siteOfSentHostname(sent: string): string {
  const { host } = splitSent(sent);
  const normalized = normalizeHostname(host);
  return normalized.ok ? normalized.hostname : host;
}

/** Names a browser on the owner's own machine reports: localhost and its subdomains, loopback addresses. */
export function isLocalHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]' || host === '::1' || host === '0.0.0.0';
}

const REASON_ADVICE: Record<DropReason, string> = {
  dnt: 'the browser asked not to be tracked (DNT); data-collect-dnt="true" keeps such visits',
  invalid: 'the beacon was malformed',
  invalid_hostname: 'the hostname is not a website name that can be registered',
  unknown_site: 'the hostname is not a registered site',
  unverified: 'the site is not verified yet: put the script on its home page, then POST …/verify',
  lookup_failed: 'the registry could not be read, so nothing was stored (fail closed)',
  empty_event_name: 'the event name is empty once cleaned: use letters or digits',
  replay: 'the same id arrived again within an hour: send each event once, with one id',
  queue_full: 'the service was overloaded and answered 503',
  enqueue_failed: 'the service could not write the beacon and answered 503',
  client_error: 'a script reported its own failure (type "error"): never traffic',
};

/** One sentence telling the owner of `site` what to change so that such beacons count. */
export function dropAdvice(site: string, drop: Pick<DropCount, 'hostname' | 'reason'>): string {
  const { host, port } = splitSent(drop.hostname);
  if (isLocalHost(host)) {
    return `a page on ${host} names itself ${host}, which is never a site: add data-hostname="${site}" to the script tag to test there`;
  }
  if (drop.reason === 'invalid_hostname' && port) {
    return `a hostname with a port is never a site: send ${siteOfSentHostname(drop.hostname)} without the port`;
  }
  const named = siteOfSentHostname(drop.hostname);
  if (drop.reason === 'unknown_site' && named !== site) {
    return `${named} is not registered (www. and the apex are different sites): register it too, or add data-hostname="${site}" to count its pages as ${site}`;
  }
  if (drop.reason === 'unverified') {
    return `${named} is not verified yet: put the script on its home page, then POST /api/sites/${named}/verify`;
  }
  return REASON_ADVICE[drop.reason];
}

export interface SetupDrop extends DropCount {
  advice: string;
}

/**
 * The setup check's view: drops of the last day for `names` (the site and the twin the caller
 * may see) in whatever form they were sent (port, case, scheme, trailing dot), and drops of the
 * last hour from local pages, which any owner testing on localhost may have caused.
 */
export function setupDrops(counts: DropCounts, site: string, names: readonly string[]): { recent_drops: SetupDrop[]; local_drops: SetupDrop[] } {
  const advised = (drops: DropCount[]) => drops.map((d) => ({ ...d, advice: dropAdvice(site, d) }));
  return {
    recent_drops: advised(counts.find((s) => names.includes(s), DROP_WINDOW_MS)),
    local_drops: advised(counts.find(isLocalHost, LOCAL_DROP_WINDOW_MS)),
  };
}
