/**
 * Route group `live` (issue 39): a site's live visitor stream as
 * Server-Sent Events, for its owner's ID token only (a management key is no
 * credential here: 401 `sign in required`, spec part 4), and the single-use
 * tickets that stand in for the token where a client (EventSource) cannot
 * send headers. Each account holds at most MAX_LIVE_STREAMS streams at once,
 * across every instance. On AWS this group runs in a response-streaming
 * function behind its own Function URL (functions/aws/streaming.ts).
 */
import { randomUUID } from 'node:crypto';
import { isTicketFormat, LIVE_SLOT_LEASE_SECONDS, LIVE_TICKET_TTL_SECONDS, MAX_LIVE_STREAMS, newLiveTicket, ticketHash } from '#domain/live/live-stream.ts';
import { InvalidInputError, LiveStreamLimitError, SignInRequiredError, UnknownSiteError } from '#domain/errors.ts';
import { parseFilter } from '#domain/reports/filter.ts';
import { INVALID_FILTER } from '#domain/reports/query.ts';
import { findSiteFor } from '#domain/site-lookup.ts';
import { registrationOf } from '#domain/registration.ts';
import type { SiteRecord } from '#ports/registry.ts';
import { liveOpening, runLiveStream } from '#reports/live-feed.ts';
import type { Services } from '#platform/services.ts';
import { resolveGoalFilters } from '../goal-filters.ts';
import { log } from '#platform/log.ts';
import { createGroupHandler, json, type ApiRequest as AnyApiRequest, type ApiResponse } from '../api.ts';
import { requireUserToken, requireVerifiedForOwner, type AuthServices } from '../auth.ts';

/** Callers, the report store the stream reads, the timers it runs on, and (tests) a faster cadence. */
export type LiveServices = AuthServices & Pick<Services, 'reports' | 'timers' | 'liveCadence'>;
type ApiRequest = AnyApiRequest<LiveServices>;

const nowSeconds = (req: ApiRequest) => Math.floor(req.services.clock.now().getTime() / 1000);

/** The user's own verified site: another account's or an unknown one is 404, an unverified one 403. */
async function ownedSite(req: ApiRequest, uid: string): Promise<SiteRecord> {
  const site = await findSiteFor(req.services, req.params.hostname ?? '', uid);
  if (!site || site.owner_uid !== uid) throw new UnknownSiteError();
  requireVerifiedForOwner(site);
  return site;
}

/**
 * A ticket for one stream of the site, good for a minute; refused while the account holds all its
 * streams, so a client (EventSource learns no status) is told why before it connects.
 */
async function issueTicket(req: ApiRequest) {
  const uid = await requireUserToken(req);
  const site = await ownedSite(req, uid);
  const now = nowSeconds(req);
  if ((await req.services.registry.live.heldSlots(uid, now)) >= MAX_LIVE_STREAMS) throw new LiveStreamLimitError();
  const ticket = newLiveTicket();
  const expiresAt = now + LIVE_TICKET_TTL_SECONDS;
  await req.services.registry.live.putTicket(ticketHash(ticket), { uid, hostname: site.hostname }, expiresAt);
  return json(201, { ticket, expires_at: new Date(expiresAt * 1000).toISOString() });
}

/**
 * The stream's user: the Authorization header's ID token when there is one, else the `ticket`
 * (taken, so it works once; one issued for another site lets nobody in). The site is then
 * looked up for that user as for any owner-only route.
 */
async function streamOwner(req: ApiRequest): Promise<{ uid: string; site: SiteRecord }> {
  const ticket = req.query.ticket;
  if (req.headers.authorization !== undefined || ticket === undefined) {
    const uid = await requireUserToken(req);
    return { uid, site: await ownedSite(req, uid) };
  }
  const taken = isTicketFormat(ticket) ? await req.services.registry.live.takeTicket(ticketHash(ticket), nowSeconds(req)) : null;
  if (!taken) throw new SignInRequiredError();
  const site = await ownedSite(req, taken.uid);
  if (site.hostname !== taken.hostname) throw new SignInRequiredError();
  return { uid: taken.uid, site };
}

/** The stream's subject: the site, under the `filter` parameter's clauses (the reports' grammar; the owner's goals). */
async function streamSubject(req: ApiRequest, site: SiteRecord) {
  const parsed = parseFilter(req.query.filter);
  if (parsed === null) throw new InvalidInputError(INVALID_FILTER);
  const filters = await resolveGoalFilters(req.services.registry, site, parsed, true);
  return { site: site.hostname, registration: registrationOf(site), filters };
}

async function stream(req: ApiRequest): Promise<ApiResponse> {
  const { uid, site } = await streamOwner(req);
  const { services } = req;
  const siteRef = await streamSubject(req, site);
  const opening = await liveOpening(services.reports, siteRef, services.clock.now().getTime());
  const now = nowSeconds(req);
  const hold = { uid, stream: randomUUID(), slot: -1 };
  const slot = await services.registry.live.claimSlot(uid, hold.stream, MAX_LIVE_STREAMS, now, now + LIVE_SLOT_LEASE_SECONDS);
  if (slot === null) throw new LiveStreamLimitError();
  hold.slot = slot;
  const deps = { reports: services.reports, live: services.registry.live, clock: services.clock, timers: services.timers, log };
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
    stream: (sink) => runLiveStream(deps, hold, siteRef, opening, sink, services.liveCadence),
  };
}

export const handler = createGroupHandler<LiveServices>({
  'POST /api/live/{hostname}/ticket': issueTicket,
  'GET /api/live/{hostname}': stream,
});
