/** The site verifier's page checker as configured (VERIFY_URL_TEMPLATE, VERIFY_ALLOW_PRIVATE_ADDRESSES), for every root that verifies sites. */
import { HttpPageChecker } from '#adapters/http-page-checker/http-page-checker.ts';
import type { Config } from './config.ts';

/** `trackerScript`: the latest.js this service serves, which a proxied /latest.js must serve to count. */
export function pageCheckerFor(config: Readonly<Config>, trackerScript: string): HttpPageChecker {
  return new HttpPageChecker({ urlTemplate: config.verifyUrlTemplate, allowPrivateAddresses: config.verifyAllowPrivateAddresses, trackerScript });
}
