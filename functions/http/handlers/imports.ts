/**
 * Route group `imports` (spec part 4 "Imports", DESIGN.md §4): source
 * discovery, the site's jobs, and starting, cancelling and retrying imports.
 * Create runs the spec's checks strictly in order; every reservation it makes
 * (daily slot, site lock) is given back when a later check fails.
 */
import {
  DailyImportLimitError,
  ImportActiveError,
  InvalidInputError,
  NotCancellableError,
  NotRetryableError,
  UnknownImportError,
  UnverifiedOwnerError,
} from '#domain/errors.ts';
import { isVerified } from '#domain/site.ts';
import { API_KEY_REQUIRED, parseImportRequest, parseRetryCredentials } from '#domain/imports/create-request.ts';
import {
  MAX_IMPORTS_PER_DAY,
  MAX_LISTED_IMPORTS,
  RETRY_CREDENTIALS_TTL_MS,
  compareJobsNewestFirst,
  isJobIdForm,
  jobView,
  newImportJob,
  transition,
  uuidv7,
} from '#domain/imports/job.ts';
import { IMPORT_SOURCES, findImportSource, sourceView } from '#domain/imports/source.ts';
import type { ImportJobRecord } from '#ports/import-jobs.ts';
import { chunkMessages } from '#domain/imports/chunk-message.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireOwnedSite, requireOwnedSiteByIdToken, requirePrincipal, type AuthServices } from '../auth.ts';
import type { Services } from '#platform/services.ts';

/** Callers, import jobs, their queue, the sealing key and the source's credential test. */
export type ImportsServices = AuthServices & Pick<Services, 'importJobs' | 'importQueue' | 'importSource' | 'secrets' | 'clock'>;
type ApiRequest = AnyApiRequest<ImportsServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';
const view = (job: ImportJobRecord) => jobView(job, findImportSource(job.source));
const credentialContext = (job: Pick<ImportJobRecord, 'site' | 'id'>) => ({ site: job.site, job_id: job.id });

async function listSources(req: ApiRequest) {
  await requirePrincipal(req, 'read');
  return json(200, { sources: IMPORT_SOURCES.map(sourceView) });
}

async function listImports(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'read');
  const jobs = await req.services.importJobs.listJobs(site.hostname, MAX_LISTED_IMPORTS);
  return json(200, { imports: jobs.sort(compareJobsNewestFirst).slice(0, MAX_LISTED_IMPORTS).map(view) });
}

/** Queues the job's unfinished chunks; a queue that refuses them fails the job rather than leaving it queued forever. */
async function enqueue(services: ImportsServices, job: ImportJobRecord): Promise<void> {
  try {
    await services.importQueue.sendBatch(chunkMessages(job));
  } catch (e) {
    const at = services.clock.now();
    await services.importJobs.finish(job.site, job.id, {
      from: ['queued'],
      to: 'failed',
      at,
      error: 'the import could not be queued; retry it',
      attempt: job.attempt,
      credentialsExpireAt: new Date(at.getTime() + RETRY_CREDENTIALS_TTL_MS),
    });
    throw e;
  }
}

async function createImport(req: ApiRequest) {
  const { services } = req;
  // 1. Site owner (ID token only; keys 403 and anonymous 401 before the lookup).
  const { principal, site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  // 2. Verified.
  if (!isVerified(site)) throw new UnverifiedOwnerError();
  const now = services.clock.now();
  // 3 and 4. Dates, then source and configuration.
  const parsed = parseImportRequest(jsonBody(req), now);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const { request } = parsed;
  const jobId = uuidv7(now);
  // 5. Daily limit.
  if (!(await services.importJobs.reserveDailySlot(principal.uid, jobId, now, MAX_IMPORTS_PER_DAY))) {
    throw new DailyImportLimitError();
  }
  let locked = false;
  let stored = false;
  try {
    // 6. One queued or running job per site.
    locked = await services.importJobs.acquireActiveLock(site.hostname, jobId, now);
    if (!locked) throw new ImportActiveError();
    // 7. Credential test.
    const check = await services.importSource.checkCredentials(request.credentials, request.source_hostname, now);
    if (!check.ok) throw new InvalidInputError(check.error);
    const job = newImportJob(jobId, site.hostname, principal.uid, request, now);
    const sealed = await services.secrets.seal(request.credentials.api_key, credentialContext(job));
    await services.importJobs.createJob(job, sealed);
    stored = true;
    await enqueue(services, job);
    return json(201, view(job));
  } finally {
    if (!stored) {
      if (locked) await services.importJobs.releaseActiveLock(site.hostname, jobId);
      await services.importJobs.releaseDailySlot(principal.uid, jobId, now);
    }
  }
}

async function ownedJob(req: ApiRequest): Promise<ImportJobRecord> {
  const { site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  const jobId = req.params.jobId ?? '';
  // Not asked of the store: an overlong id would fail on its key size limit instead of missing.
  const job = isJobIdForm(jobId) ? await req.services.importJobs.getJob(site.hostname, jobId) : null;
  if (!job) throw new UnknownImportError();
  return job;
}

async function cancelImport(req: ApiRequest) {
  const job = await ownedJob(req);
  const at = req.services.clock.now();
  const cancelled = await req.services.importJobs.finish(job.site, job.id, {
    ...transition('cancel'),
    at,
    error: null,
    credentialsExpireAt: new Date(at.getTime() + RETRY_CREDENTIALS_TTL_MS),
  });
  if (!cancelled) throw new NotCancellableError();
  return json(200, view(cancelled));
}

async function retryImport(req: ApiRequest) {
  const { services } = req;
  const job = await ownedJob(req);
  if (!transition('retry').from.includes(job.status)) throw new NotRetryableError();
  const at = services.clock.now();
  const replacement = parseRetryCredentials(jsonBody(req));
  if ('error' in replacement) throw new InvalidInputError(replacement.error);
  const kept = await services.importJobs.getCredentials(job.site, job.id, at);
  if (!kept && !replacement.api_key) throw new InvalidInputError(API_KEY_REQUIRED);
  if (!(await services.importJobs.acquireActiveLock(job.site, job.id, at))) throw new ImportActiveError();
  let queued: ImportJobRecord | null = null;
  try {
    queued = await services.importJobs.requeue(job.site, job.id, at);
    if (!queued) throw new NotRetryableError();
  } finally {
    if (!queued) await services.importJobs.releaseActiveLock(job.site, job.id);
  }
  if (replacement.api_key) {
    await services.importJobs.putCredentials(job.site, job.id, await services.secrets.seal(replacement.api_key, credentialContext(job)), at);
  }
  if (queued.done_chunks.length >= queued.chunks_total) {
    // Every chunk was recorded before the job was stopped: nothing is left to run.
    const done = await services.importJobs.markRunning(job.site, job.id, queued.attempt, at);
    const finished = done && (await services.importJobs.finish(job.site, job.id, { from: ['running'], to: 'succeeded', at, error: null }));
    return json(200, view(finished || queued));
  }
  await enqueue(services, queued);
  return json(200, view(queued));
}

export const handler = createGroupHandler<ImportsServices>({
  'GET /api/import-sources': listSources,
  'GET /api/sites/{hostname}/imports': listImports,
  'POST /api/sites/{hostname}/imports': createImport,
  'POST /api/sites/{hostname}/imports/{jobId}/cancel': cancelImport,
  'POST /api/sites/{hostname}/imports/{jobId}/retry': retryImport,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/imports.ts). */
export const createImportsHandler = (services: ImportsServices) => handler.lambda(services);
