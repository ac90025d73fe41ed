/**
 * Why the product refuses a request, as named classes that domain code,
 * adapters and handlers throw. Each carries the spec's exact `error` text
 * once and says what kind of refusal it is; which HTTP status a kind is
 * answered with is decided only at the HTTP edge (functions/http/errors.ts),
 * and the OpenAPI document reads the same texts from these classes.
 */

/** What kind of refusal: the edge maps each kind to one status. */
export type RefusalKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited' | 'unavailable' | 'not_implemented' | 'internal';

export abstract class ProductError extends Error {
  abstract readonly kind: RefusalKind;
  /** Seconds a client should wait before asking again, when the answer says so; null otherwise. */
  readonly retryAfterSeconds: number | null = null;
}

/** A refusal class with one fixed text: `new UnknownSiteError()`, and `UnknownSiteError.text` for documents. */
export interface FixedRefusal {
  new (): ProductError;
  readonly kind: RefusalKind;
  readonly text: string;
  readonly retryAfterSeconds: number | null;
}

function refusal(name: string, kind: RefusalKind, text: string, retryAfterSeconds: number | null = null): FixedRefusal {
  const Refusal = class extends ProductError {
    static readonly kind = kind;
    static readonly text = text;
    static readonly retryAfterSeconds = retryAfterSeconds;
    readonly kind = kind;
    override readonly retryAfterSeconds = retryAfterSeconds;
    constructor() {
      super(text);
      this.name = name;
    }
  };
  Object.defineProperty(Refusal, 'name', { value: name });
  return Refusal;
}

export const SignInRequiredError = refusal('SignInRequiredError', 'unauthenticated', 'sign in required');
export const InvalidKeyError = refusal('InvalidKeyError', 'unauthenticated', 'invalid or revoked management key');
export const KeysForbiddenError = refusal('KeysForbiddenError', 'forbidden', 'management keys cannot call this endpoint');
export const UnverifiedOwnerError = refusal('UnverifiedOwnerError', 'forbidden', 'Install your tracking script to verify this site first');
export const SelfRevokeOnlyError = refusal('SelfRevokeOnlyError', 'forbidden', 'only a management key can revoke itself');
export const UnknownSiteError = refusal('UnknownSiteError', 'not_found', 'unknown site');
export const UnknownKeyError = refusal('UnknownKeyError', 'not_found', 'unknown key');
export const UnknownImportError = refusal('UnknownImportError', 'not_found', 'unknown import');
/** An unmatched product API route. */
export const NotFoundError = refusal('NotFoundError', 'not_found', 'not found');
export const HostnameTakenError = refusal('HostnameTakenError', 'conflict', 'hostname is registered to another account');
export const ImportActiveError = refusal('ImportActiveError', 'conflict', 'an import is already active for this site');
export const NotCancellableError = refusal('NotCancellableError', 'conflict', 'only a queued or running import can be cancelled');
export const NotRetryableError = refusal('NotRetryableError', 'conflict', 'only a failed or cancelled import can be retried');
// A DNS claim of another account's registration (functions/domain/site-claim.ts).
export const OwnSiteClaimError = refusal('OwnSiteClaimError', 'conflict', 'this site is already registered to your account');
export const UnverifiedClaimError = refusal(
  'UnverifiedClaimError',
  'conflict',
  'only a verified site can be claimed; an unverified registration lapses 7 days after it was made',
);
export const NoActiveClaimError = refusal('NoActiveClaimError', 'not_found', 'no active claim on this site; start one with POST /api/sites/{hostname}/claim');
export const ClaimRecordMissingError = refusal('ClaimRecordMissingError', 'conflict', 'the TXT record tinytrack-claim=<claim token> was not found on the hostname');
export const ClaimOvertakenError = refusal('ClaimOvertakenError', 'conflict', 'the registration changed while the claim was checked; start a new claim');
export const RateLimitedError = refusal('RateLimitedError', 'rate_limited', 'rate limited, retry in 1s', 1);
export const DailyImportLimitError = refusal('DailyImportLimitError', 'rate_limited', 'daily import limit reached');
export const SiteLimitError = refusal('SiteLimitError', 'invalid', 'site limit reached');
export const KeyLimitError = refusal('KeyLimitError', 'invalid', 'management key limit reached');
export const InvalidKindError = refusal('InvalidKindError', 'invalid', 'kind must be web or api');
export const PublicNeedsVerificationError = refusal('PublicNeedsVerificationError', 'invalid', 'verify domain ownership before making the site public');
export const UnknownDimensionError = refusal('UnknownDimensionError', 'invalid', 'unknown dimension');
// API analytics (issue 36): site API keys and POST /api/ingest.
export const SiteKeysNeedVerificationError = refusal('SiteKeysNeedVerificationError', 'forbidden', 'verify this site before creating API keys');
export const SiteKeyLimitError = refusal('SiteKeyLimitError', 'invalid', 'site API key limit reached');
export const IngestNeedsVerificationError = refusal('IngestNeedsVerificationError', 'forbidden', 'verify this site before sending API data');
export const ServiceSiteRequiredError = refusal('ServiceSiteRequiredError', 'invalid', 'X-Service-Site header required');
/** A site API key naming another site in X-Service-Site: it authenticates only its own. */
export const ServiceSiteMismatchError = refusal('ServiceSiteMismatchError', 'forbidden', 'this API key belongs to another site');
export const UnknownApiKeyError = refusal('UnknownApiKeyError', 'unauthenticated', 'invalid or revoked API key');
export const AlertLimitError = refusal('AlertLimitError', 'invalid', 'alert rule limit reached');
export const UnknownAlertError = refusal('UnknownAlertError', 'not_found', 'unknown alert rule');
// Goals and funnels (issue 37).
export const GoalLimitError = refusal('GoalLimitError', 'invalid', 'goal limit reached');
export const FunnelLimitError = refusal('FunnelLimitError', 'invalid', 'funnel limit reached');
export const GoalExistsError = refusal('GoalExistsError', 'conflict', 'a goal with this type and match already exists');
export const UnknownGoalError = refusal('UnknownGoalError', 'not_found', 'unknown goal');
export const UnknownFunnelError = refusal('UnknownFunnelError', 'not_found', 'unknown funnel');
// E-mail digests (issue 38).
export const EmailReportLimitError = refusal('EmailReportLimitError', 'invalid', 'e-mail report limit reached');
export const UnknownEmailReportError = refusal('UnknownEmailReportError', 'not_found', 'unknown e-mail report');
// The live stream (issue 39).
export const LiveStreamLimitError = refusal('LiveStreamLimitError', 'rate_limited', 'live stream limit reached: at most 5 open streams per account; close one first');
// Share links (issue 40, part 5).
export const ShareLinkLimitError = refusal('ShareLinkLimitError', 'invalid', 'share link limit reached: at most 20 per site; revoke one first');
export const UnknownShareLinkError = refusal('UnknownShareLinkError', 'not_found', 'unknown share link');
export const ShareNeedsVerificationError = refusal('ShareNeedsVerificationError', 'invalid', 'verify domain ownership before sharing the site');
/** A password-protected link read without a valid grant (none, expired, another link's). */
export const SharePasswordRequiredError = refusal('SharePasswordRequiredError', 'unauthenticated', 'password required: unlock this share link with its password first');
export const WrongSharePasswordError = refusal('WrongSharePasswordError', 'unauthenticated', 'wrong password for this share link');
export const NoSharePasswordError = refusal('NoSharePasswordError', 'invalid', 'this share link has no password');
/** A deployment with no sender configured (AWS without -c mailFrom): nothing can be mailed. */
export const NoCrawlerLinkError = refusal('NoCrawlerLinkError', 'conflict', 'no Cloudflare zone is linked to this site; link one first');
export const CloudflareTokenRequiredError = refusal('CloudflareTokenRequiredError', 'invalid', 'X-Cloudflare-Token header required');

export const MailNotConfiguredError = refusal('MailNotConfiguredError', 'not_implemented', 'mail is not configured on this deployment');
/** A store that keeps refusing for load (throttling past the SDK's retries): worth asking again shortly. */
export const StoreUnavailableError = refusal('StoreUnavailableError', 'unavailable', 'service unavailable, retry later', 1);
/** A report the deployment's event store does not answer: Timestream is frozen at the first slice's reports (README, deploy). */
export const NotAvailableOnStoreError = refusal('NotAvailableOnStoreError', 'not_implemented', 'not available with the Timestream event store');
// The owner export (issue 42): a deployment that caps one download (AWS: Lambda's streamed answer).
export const ExportTooLargeError = refusal('ExportTooLargeError', 'invalid', 'too many rows for one export on this deployment: choose fewer days');
// Search Console (issue 41): the consent flow, the link and Google's answers (functions/adapters/google/).
export const GoogleNotConfiguredError = refusal('GoogleNotConfiguredError', 'not_implemented', 'Google sign-in is not configured on this deployment');
export const OAuthStateError = refusal('OAuthStateError', 'invalid', 'the Google sign-in expired or was already used: start again');
export const SearchNotLinkedError = refusal('SearchNotLinkedError', 'conflict', 'Search Console is not linked to this site');
export const NoSearchPropertyError = refusal('NoSearchPropertyError', 'conflict', 'choose a Search Console property first');
export const UnknownSearchPropertyError = refusal('UnknownSearchPropertyError', 'invalid', 'the Google account has no such Search Console property');
export const GoogleGrantRevokedError = refusal('GoogleGrantRevokedError', 'conflict', 'the Google grant was revoked or has expired: link Search Console again');
export const GoogleQuotaError = refusal('GoogleQuotaError', 'rate_limited', 'the Search Console quota is used up, retry later');
export const GooglePermissionError = refusal('GooglePermissionError', 'forbidden', 'the Google account cannot read this Search Console property');
export const GoogleUnavailableError = refusal('GoogleUnavailableError', 'unavailable', 'Google did not answer, retry later');
/** Anything unexpected: its details go to the log, never to the caller. */
export const InternalError = refusal('InternalError', 'internal', 'internal error');

/** Every refusal with a fixed text, for the documents and the checks that walk them. */
export const FIXED_REFUSALS: readonly FixedRefusal[] = [
  SignInRequiredError,
  InvalidKeyError,
  KeysForbiddenError,
  UnverifiedOwnerError,
  SelfRevokeOnlyError,
  UnknownSiteError,
  UnknownKeyError,
  UnknownImportError,
  NotFoundError,
  HostnameTakenError,
  ImportActiveError,
  NotCancellableError,
  NotRetryableError,
  OwnSiteClaimError,
  UnverifiedClaimError,
  NoActiveClaimError,
  ClaimRecordMissingError,
  ClaimOvertakenError,
  RateLimitedError,
  DailyImportLimitError,
  SiteLimitError,
  KeyLimitError,
  InvalidKindError,
  PublicNeedsVerificationError,
  UnknownDimensionError,
  SiteKeysNeedVerificationError,
  SiteKeyLimitError,
  IngestNeedsVerificationError,
  ServiceSiteRequiredError,
  ServiceSiteMismatchError,
  UnknownApiKeyError,
  AlertLimitError,
  UnknownAlertError,
  GoalLimitError,
  FunnelLimitError,
  GoalExistsError,
  UnknownGoalError,
  UnknownFunnelError,
  LiveStreamLimitError,
  EmailReportLimitError,
  UnknownEmailReportError,
  ShareLinkLimitError,
  UnknownShareLinkError,
  ShareNeedsVerificationError,
  SharePasswordRequiredError,
  WrongSharePasswordError,
  NoSharePasswordError,
  NoCrawlerLinkError,
  CloudflareTokenRequiredError,
  MailNotConfiguredError,
  StoreUnavailableError,
  NotAvailableOnStoreError,
  ExportTooLargeError,
  GoogleNotConfiguredError,
  OAuthStateError,
  SearchNotLinkedError,
  NoSearchPropertyError,
  UnknownSearchPropertyError,
  GoogleGrantRevokedError,
  GoogleQuotaError,
  GooglePermissionError,
  GoogleUnavailableError,
  InternalError,
];

/** A key without the scope an endpoint needs: `scope read required`. */
export class ScopeRequiredError extends ProductError {
  readonly kind = 'forbidden';
  static readonly kind = 'forbidden';
  static textFor = (scope: string): string => `scope ${scope} required`;
  constructor(scope: string) {
    super(ScopeRequiredError.textFor(scope));
    this.name = 'ScopeRequiredError';
  }
}

/**
 * Checks that fetch a third party's page (verification, a DNS claim) past their limit:
 * `rate limited, retry in 6s`, with the same wait in Retry-After.
 */
export class ChecksRateLimitedError extends ProductError {
  readonly kind = 'rate_limited';
  static readonly kind = 'rate_limited';
  static textFor = (seconds: number | string): string => `rate limited, retry in ${seconds}s`;
  override readonly retryAfterSeconds: number;
  constructor(seconds: number) {
    super(ChecksRateLimitedError.textFor(seconds));
    this.name = 'ChecksRateLimitedError';
    this.retryAfterSeconds = seconds;
  }
}

/**
 * Input a parser refused, with that parser's text: each parser exports the
 * texts it answers with (hostname.ts, site.ts, reports/query.ts,
 * imports/create-request.ts, auth.ts), and the OpenAPI document lists them
 * from there.
 */
export class InvalidInputError extends ProductError {
  readonly kind = 'invalid';
  static readonly kind = 'invalid';
  constructor(text: string) {
    super(text);
    this.name = 'InvalidInputError';
  }
}
