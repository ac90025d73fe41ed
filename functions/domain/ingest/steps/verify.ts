/**
 * Verify: an unverified site gets one page check per interval and instance,
 * inline so that it also completes on Lambda. The check is single-flight:
 * every beacon that arrives while it runs waits for the same check, so a site
 * going live loses none of its first beacons. Where rows can be held, a
 * beacon waits at most VERIFY_WAIT_MS; a check that runs longer decides its
 * held row when it ends (steps/store.ts).
 */
import { isVerified } from '../../site.ts';
import { runVerification } from '../../site-verification-run.ts';
import { drop, type Drop } from '../drop.ts';
import { sentHostname } from '../incoming.ts';
import type { Step } from '../pipeline.ts';
import type { CollectServices } from '../services.ts';
import type { AtSite } from './site.ts';
import type { SiteRecord } from '#ports/registry.ts';

/** Automatic verification runs at most this often per hostname and instance (a pending site is cached 15 s). */
export const AUTO_VERIFY_INTERVAL_MS = 15_000;
/** How long a beacon waits for its site's running check before its row is held (HeldRows) and it is answered. */
export const VERIFY_WAIT_MS = 3_000;

/** The check running for the site, or a new one; null: none runs, and the last one, under AUTO_VERIFY_INTERVAL_MS ago, failed. */
function verificationRun(services: CollectServices, site: SiteRecord, servedOrigin: string | undefined): Promise<SiteRecord | null> | null {
  const running = services.verifyRuns.get(site.hostname);
  if (running) return running;
  if (services.verifyAttempts.has(site.hostname)) return null;
  services.verifyAttempts.set(site.hostname, true, AUTO_VERIFY_INTERVAL_MS);
  const run = runVerification(services, site, 'collect', { servedOrigin })
    .then(
      ({ site: after }) => (isVerified(after) ? after : null),
      () => null,
    )
    .finally(() => services.verifyRuns.delete(site.hostname));
  services.verifyRuns.set(site.hostname, run);
  return run;
}

const WAITED_TOO_LONG = Symbol('waited too long');

/** The run's outcome, or WAITED_TOO_LONG after `ms`. */
function within<T>(run: Promise<T>, ms: number): Promise<T | typeof WAITED_TOO_LONG> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<typeof WAITED_TOO_LONG>((ok) => {
    timer = setTimeout(() => ok(WAITED_TOO_LONG), ms);
    timer.unref();
  });
  return Promise.race([run, bound]).finally(() => clearTimeout(timer));
}

async function awaitCheck(services: CollectServices, value: AtSite): Promise<AtSite | Drop> {
  const run = verificationRun(services, value.site, value.incoming.servedOrigin);
  if (!run) return drop('unverified');
  const outcome = services.heldRows ? await within(run, VERIFY_WAIT_MS) : await run;
  if (outcome === null) return drop('unverified');
  // Too long: the row is built from the record as it was (the same registration the check verifies) and held.
  if (outcome === WAITED_TOO_LONG) return { incoming: value.incoming, site: value.site, heldFor: run };
  return { incoming: value.incoming, site: outcome, heldFor: null };
}

export const verifyStep: Step<AtSite, AtSite, CollectServices> = {
  name: 'verify',
  run: (value, services) => (isVerified(value.site) ? value : awaitCheck(services, value)),
  sentHostname,
};
