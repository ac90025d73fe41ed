/** Site verification outcome (DESIGN §3): passed or not, and if not, what the owner should fix. */
import { VERIFICATION_ATTRIBUTE, VERIFICATION_META, type PageScan } from './page-scan.ts';

export type VerificationMethod = 'script' | 'token' | 'dns';
export type VerificationFailure = 'no_script' | 'foreign_script' | 'token_missing' | 'unreachable' | 'redirect_off_site';

export interface Verification {
  ok: boolean;
  /** How it passed; null when it did not. */
  method: VerificationMethod | null;
  /** Why it did not pass; null when it did. */
  reason: VerificationFailure | null;
  /** One sentence for the owner. */
  detail: string;
}

/** The last verification attempt, kept on the site for the setup view. */
export interface SiteCheck extends Verification {
  checked_at: string;
  /** `verify`: POST …/verify; `collect`: the collector's automatic check. */
  trigger: 'verify' | 'collect';
}

/** A /latest.js on the site whose body the page checker read (or could not read) and found not to be this service's build. */
export interface ProxiedMismatch {
  script: string;
  /** E.g. `it serves another script`, `HTTP 404`. */
  why: string;
}

/**
 * What the page checker saw (ports/page-checker.ts), or why it saw nothing. `scriptFound` includes a
 * proxied /latest.js whose body is this service's build; `proxiedMismatch` names the first that is not.
 */
export type PageOutcome = ({ reachable: true; proxiedMismatch: ProxiedMismatch | null } & PageScan) | { reachable: false; offSite: boolean; error: string };

export const DNS_TXT_PREFIX = 'tinytrack-verification=';

const pass = (method: VerificationMethod, detail: string): Verification => ({ ok: true, method, reason: null, detail });
const fail = (reason: VerificationFailure, detail: string): Verification => ({ ok: false, method: null, reason, detail });

/**
 * Judges a page check, plus (explicit verification only) whether the DNS TXT record was found.
 * `publicOrigins` only words the advice.
 */
export function judgeVerification(page: PageOutcome, dnsTxtFound: boolean, publicOrigins: readonly string[]): Verification {
  if (page.reachable && page.scriptFound) return pass('script', 'the tracking script is on the page');
  if (page.reachable && page.tokenFound) return pass('token', 'the verification token is on the page');
  if (dnsTxtFound) return pass('dns', `the DNS TXT record ${DNS_TXT_PREFIX}… is on the hostname`);
  if (!page.reachable) {
    return page.offSite ? fail('redirect_off_site', page.error) : fail('unreachable', `the page could not be read: ${page.error}`);
  }
  const ours = publicOrigins.length > 0 ? `${publicOrigins.map((o) => `${o.replace(/\/+$/, '')}/latest.js`).join(' or ')} or ` : '';
  if (page.foreignScript) {
    return fail('foreign_script', `the page loads ${page.foreignScript}, which is not this service's script; load ${ours}a /latest.js proxied on this site`);
  }
  if (page.proxiedMismatch) {
    const { script, why } = page.proxiedMismatch;
    return fail(
      'foreign_script',
      `the page loads ${script} from this site, but it is not this service's script (${why}); load ${ours}a /latest.js on this site that passes this service's latest.js through unchanged`,
    );
  }
  if (page.tokenMisplaced) {
    return fail(
      'token_missing',
      `the verification token counts only in <meta name="${VERIFICATION_META}" content="…"> in <head> or a ${VERIFICATION_ATTRIBUTE} attribute of the script tag`,
    );
  }
  return fail('no_script', `no <script> loads ${ours}a proxied /latest.js on this site, and no verification token is on the page`);
}
