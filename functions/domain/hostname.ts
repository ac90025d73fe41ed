/**
 * Hostname normalization for registration and collection (spec part 2 "Site").
 *
 * A hostname is the registry's primary key, so every spelling a user or a
 * browser may send for one site ("https://Example.com/", "example.com.",
 * "bücher.de" vs "xn--bcher-kva.de") must collapse to one canonical ASCII form.
 * Anything that is not a plain DNS name (ports, IP literals, userinfo) is
 * rejected rather than guessed at, because ownership is verified per name.
 */
import type * as Tr46 from 'tr46';
import { isNormalizedHostname } from './hostname-form.ts';
import { lazyModule } from './lazy-module.ts';

export type SiteKind = 'web' | 'api';
export type NormalizedHostname = { ok: true; hostname: string } | { ok: false; error: string };
export const WEB_HOSTNAME_INVALID = 'Enter a valid website address, such as example.com';
export const API_HOSTNAME_INVALID = 'Enter a valid API hostname, such as api.example.com';
export const HOSTNAME_ERRORS = [WEB_HOSTNAME_INVALID, API_HOSTNAME_INVALID] as const;


// Nontransitional processing matches WHATWG URL, so "faß.de" stays distinct
// from "fass.de" exactly as browsers resolve it; the strict checks keep out
// names that DNS or registrars would not accept anyway.
const IDNA_OPTIONS: Tr46.ToAsciiOptions = {
  checkHyphens: true,
  checkBidi: true,
  checkJoiners: true,
  useSTD3ASCIIRules: true,
  transitionalProcessing: false,
  verifyDNSLength: true,
};

// The IDNA tables: only names that are not already canonical ASCII need them.
const tr46 = lazyModule<typeof Tr46>('tr46');

// Unicode input can be longer than its ASCII form only through ignored code
// points; past this bound it is not a hostname and IDNA work is not worth doing.
const MAX_AUTHORITY_CHARS = 1024;

// IDNA's CheckHyphens refuses "--" in a label's third and fourth places, and
// an "xn--" label must be valid Punycode: such names go through IDNA.
const HYPHENS_3_4 = /(?:^|\.)[^.]{2}--/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//;
// Backslash counts as a delimiter because URL parsers treat it as "/" for web
// schemes; treating it as part of the name would only produce a confusing error.
const AUTHORITY_END = /[/?#\\]/;
// IDNA maps these full stops to "." later; one trailing occurrence is dropped
// here so "example.com。" behaves like "example.com.".
const TRAILING_DOT = /[.\u3002\uff0e\uff61]$/;

export function normalizeHostname(input: unknown, kind: SiteKind = 'web'): NormalizedHostname {
  const invalid: NormalizedHostname = { ok: false, error: kind === 'api' ? API_HOSTNAME_INVALID : WEB_HOSTNAME_INVALID };
  if (typeof input !== 'string') return invalid;

  const lowered = input.trim().toLowerCase();
  const withoutScheme = lowered.replace(SCHEME, '');
  const end = withoutScheme.search(AUTHORITY_END);
  const authority = end === -1 ? withoutScheme : withoutScheme.slice(0, end);

  if (authority.length === 0 || authority.length > MAX_AUTHORITY_CHARS) return invalid;
  // "@" means userinfo; ":" means a port or a bare IPv6 address; "[" a bracketed one.
  if (/[@:[\]]/.test(authority)) return invalid;

  const host = authority.replace(TRAILING_DOT, '');
  if (host.length === 0) return invalid;

  // Already canonical ASCII (most beacons): IDNA would return it unchanged, and costs far more.
  if (isNormalizedHostname(host) && !HYPHENS_3_4.test(host)) return { ok: true, hostname: host };

  let ascii: string | null;
  try {
    ascii = tr46().toASCII(host, IDNA_OPTIONS);
  } catch {
    // The contract is "never throw"; a library surprise is just a bad name.
    return invalid;
  }
  if (ascii === null || !isNormalizedHostname(ascii)) return invalid;
  return { ok: true, hostname: ascii };
}
