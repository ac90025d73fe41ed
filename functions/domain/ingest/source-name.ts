/**
 * The display name of an acquisition source, from the maintained referrer
 * list of @tryghost/referrer-parser (MIT; search engines, social sites, mail
 * and news apps by host): `google.com`, `google.de` and `google.co.uk` are all
 * `Google`, `t.co` and `x.com` `Twitter`. A campaign tag that names a known
 * source (`utm_source=google`) takes its name too. A host is matched whole or
 * by a parent domain (`m.youtube.com` is `youtube.com`), never by a prefix of
 * its text (`t.copilot.example` is not `t.co`). Anything unknown is kept as
 * it is. Each distinct value is looked up once (the list is searched in full
 * per look-up, about a millisecond), and the package is loaded on first use.
 */
import type * as ReferrerList from '@tryghost/referrer-parser';
import { lazyModule } from '../lazy-module.ts';
import { memoize } from '../memo.ts';

// Loaded on first use: its list is most of a collector bundle's size (lib/node-function.ts LAZY_MODULES).
const referrerList = lazyModule<typeof ReferrerList>('@tryghost/referrer-parser');
let loaded: ReferrerList.ReferrerParser | undefined;
const parser = () => (loaded ??= new (referrerList().ReferrerParser)());

/** Where the list's spelling differs from the site's own. */
const DISPLAY: Readonly<Record<string, string>> = { Youtube: 'YouTube' };
const display = (name: string) => DISPLAY[name] ?? name;

/** The list's entry whose key is a prefix of `text` + '/', longest first (the package's own match), or null. */
function entryOf(text: string): object | null {
  let url: URL;
  try {
    url = new URL(`https://${text}/`);
  } catch {
    return null;
  }
  return url.hostname === text ? parser().getDataFromUrl(url) : null;
}

/**
 * The list's name of exactly `host`: its longest matching key is the host itself when dropping
 * the host's last character loses that match (a shorter key would still match without it).
 */
function exactName(host: string): string | null {
  const entry = entryOf(host) as { source?: string } | null;
  if (!entry?.source || entry === entryOf(host.slice(0, -1))) return null;
  return display(entry.source);
}

/** The known name of a referring host (lowercase, no `www.`), by the host or a parent domain; null when unknown. */
export function knownHostName(host: string): string | null {
  const labels = host.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const name = exactName(labels.slice(i).join('.'));
    if (name) return name;
  }
  return null;
}

/** The Ghost-only readings of a source tag the package makes (its newsletters, its Explore): not this service's. */
const ghostOnly = (tag: string) => tag === 'ghost-explore' || tag.endsWith('-newsletter');

/** The known name of a campaign tag: a source's name in any case, or a known host; null when unknown. */
function knownTagName(tag: string): string | null {
  if (!ghostOnly(tag)) {
    const named = parser().parse('', tag).referrerSource;
    if (named && named !== tag) return display(named);
  }
  return tag.includes('.') ? knownHostName(tag.toLowerCase().replace(/^www\./, '')) : null;
}

const hostNames = memoize((host: string) => knownHostName(host) ?? host, 5_000, 1024 * 1024);
const tagNames = memoize((tag: string) => knownTagName(tag) ?? tag, 5_000, 1024 * 1024);

/** A referring host's source name: the list's, else the host. */
export const hostSource = (host: string): string => hostNames(host);

/** A campaign tag's source name: the list's, else the tag as sent. */
export const tagSource = (tag: string): string => tagNames(tag);
