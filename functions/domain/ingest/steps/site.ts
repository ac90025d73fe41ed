/** The first shared steps: the registry's form of the hostname an input names, then its site. */
import { cachedSite, findSite } from '../../site-lookup.ts';
import { drop, type Drop } from '../drop.ts';
import { sentHostname, type Incoming } from '../incoming.ts';
import type { Step } from '../pipeline.ts';
import type { CollectServices } from '../services.ts';
import type { SiteRecord } from '#ports/registry.ts';

export interface Named {
  incoming: Incoming;
  /** The normalized hostname. */
  hostname: string;
}

export interface AtSite {
  incoming: Incoming;
  site: SiteRecord;
  /**
   * The check still running when the beacon stopped waiting for it (steps/verify.ts): the row
   * is held until it decides. Null when the site was verified in time.
   */
  heldFor: Promise<SiteRecord | null> | null;
}

/** Normalize hostname: the registry's form of the name the input sent (IDNA and all), cached per name. */
export const hostnameStep: Step<Incoming, Named, CollectServices> = {
  name: 'hostname',
  run(incoming, services) {
    const normalized = services.collectorCaches.hostnames(incoming.payload.hostname);
    return normalized.ok ? { incoming, hostname: normalized.hostname } : drop('invalid_hostname');
  },
  sentHostname: (incoming) => incoming.payload.hostname,
};

const atSite = (incoming: Incoming, site: SiteRecord | null): AtSite | Drop => (site ? { incoming, site, heldFor: null } : drop('unknown_site'));

/** Look up site: from the instance's caches, else the registry. Fail-closed: an unreadable registry stores nothing. */
export const siteStep: Step<Named, AtSite, CollectServices> = {
  name: 'site',
  run({ incoming, hostname }, services) {
    const cached = cachedSite(services, hostname);
    if (cached !== undefined) return atSite(incoming, cached);
    return findSite(services, hostname).then(
      (site) => atSite(incoming, site),
      (e: unknown) => {
        services.log.error('site lookup failed', { message: (e as Error).message });
        return drop('lookup_failed');
      },
    );
  },
  sentHostname,
};
