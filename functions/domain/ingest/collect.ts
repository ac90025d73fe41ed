/**
 * The shared ingest steps, in order: normalize hostname → look up site →
 * verify → row (salt, enrich, bot flag included) → resend → store (enqueue, or
 * hold while the site's check runs) → seen. They start from an Incoming row
 * whatever its kind: the beacon routes decode theirs in beacon.ts; a new kind
 * (an API request, an outbound click, a crawler hit) is its own decode steps
 * followed by these. Each step answers from the instance's caches without a
 * promise when it can, so a beacon for a known site awaits only its queue.
 */
import { isDrop, type Drop } from './drop.ts';
import type { Incoming } from './incoming.ts';
import { runPipeline, Steps, uncounted } from './pipeline.ts';
import type { CollectServices } from './services.ts';
import { rowStep, resendStep } from './steps/row.ts';
import { hostnameStep, siteStep } from './steps/site.ts';
import { seenStep, storeStep } from './steps/store.ts';
import { verifyStep } from './steps/verify.ts';
import type { IngestMetrics } from '#ports/ingest-metrics.ts';

export const COLLECT_STEPS = Steps.from<Incoming, CollectServices>()
  .then(hostnameStep)
  .then(siteStep)
  .then(verifyStep)
  .then(rowStep)
  .then(resendStep)
  .then(storeStep)
  .then(seenStep);

/**
 * The shared steps alone over a decoded row: null when the row was taken, else
 * why nothing was stored. Drops are counted into `metrics`; none by default,
 * for callers that count them themselves or only look at the outcome.
 */
export async function collect(services: CollectServices, incoming: Incoming, metrics: IngestMetrics = uncounted): Promise<Drop | null> {
  const outcome = await runPipeline(incoming, COLLECT_STEPS, metrics, services);
  return isDrop(outcome) ? outcome : null;
}
