/** Hostname normalization for registration and collection (spec part 2 "Site"). */
export type SiteKind = 'web' | 'api';
export type NormalizedHostname = { ok: true; hostname: string } | { ok: false; error: string };
export const WEB_HOSTNAME_INVALID = 'Enter a valid website address, such as example.com';
export const API_HOSTNAME_INVALID = 'Enter a valid API hostname, such as api.example.com';
export declare function normalizeHostname(input: unknown, kind?: SiteKind): NormalizedHostname;
