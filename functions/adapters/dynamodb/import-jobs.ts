/**
 * Import jobs over DynamoDB (and dynalite locally), in the registry's single
 * table. Items:
 *
 * - `SITE#<h>` / `IMPORT#<id>`: the job. Ids are UUIDv7, so the newest jobs
 *   are one reverse range read. Finished chunks are a number set
 *   (`done_chunks`) on the job, added in the same conditional update as the
 *   chunk's counts: a chunk is counted once, whatever is redelivered.
 * - `SITE#<h>` / `IMPORTKEY#<id>`: the sealed credentials, with a TTL
 *   (`expires_at`) as a backstop: deleted when the job succeeds, kept 7 days
 *   after a failure or cancel for a retry.
 * - `SITE#<h>` / `IMPORT_ACTIVE`: the site's one active-import lock, taken by
 *   a conditional put (two simultaneous creates: one wins, one gets 409);
 *   indexed on gsi1 (`IMPORTS_ACTIVE`) to find jobs to resume after a restart.
 * - `IMPORTS_BY#<uid>` / `<created_at>#<id>`: one per job created, for the
 *   rolling 24-hour limit; outside the site partition so deleting a site does
 *   not give its slots back; removed by TTL after a day.
 *
 * dynalite has no transactions, so every multi-item step is ordered so that
 * a crash in between leaves something harmless (see each method).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, UpdateCommandInput, UpdateCommandOutput } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DAILY_WINDOW_MS, isActive, type ImportStatus } from '#domain/imports/job.ts';
import type { ChunkCounts, FinalStatus, ImportJobRecord, ImportJobs } from '#ports/import-jobs.ts';
import { GSI1, keys } from './table.ts';
import { conditionalWrite, conditionHeld, unlessConditionFails } from './conditional-write.ts';
import { documentClient } from './document-client.ts';

/** Credentials of a running job expire after this at the latest (a backstop for crashes). */
const CREDENTIALS_MAX_AGE_MS = 30 * 24 * 3_600_000;
/** A lock whose job was never stored (a create that crashed during its credential test) is taken over after this. */
const ORPHAN_LOCK_MS = 5 * 60_000;

const epochSeconds = (ms: number) => Math.floor(ms / 1000);

/** A conditional update of a job: its expressions (the job's key and the answer, the whole new item, are set by updateJob). */
type JobUpdate = Omit<UpdateCommandInput, 'TableName' | 'Key' | 'ReturnValues'>;

function toJob(item: Record<string, unknown> | undefined): ImportJobRecord | null {
  if (!item) return null;
  const done = item.done_chunks as Set<number> | number[] | undefined;
  return {
    id: item.id as string,
    site: item.site as string,
    owner_uid: item.owner_uid as string,
    source: item.source as string,
    status: item.status as ImportStatus,
    range_start: item.range_start as string,
    range_end: item.range_end as string,
    chunks_total: Number(item.chunks_total ?? 0),
    chunks_done: Number(item.chunks_done ?? 0),
    rows_imported: Number(item.rows_imported ?? 0),
    rows_skipped: Number(item.rows_skipped ?? 0),
    error: (item.error as string | null | undefined) ?? null,
    config: { ...((item.config as Record<string, string> | undefined) ?? {}) },
    created_at: item.created_at as string,
    started_at: (item.started_at as string | null | undefined) ?? null,
    finished_at: (item.finished_at as string | null | undefined) ?? null,
    attempt: Number(item.attempt ?? 1),
    done_chunks: done ? [...done].map(Number).sort((a, b) => a - b) : [],
  };
}

/** The job as an item: nulls and the empty chunk set are left out (DynamoDB has no empty sets). */
function toItem(job: ImportJobRecord): Record<string, unknown> {
  const { done_chunks, ...rest } = job;
  const item: Record<string, unknown> = { ...keys.importJob(job.site, job.id) };
  for (const [k, v] of Object.entries(rest)) if (v !== null) item[k] = v;
  if (done_chunks.length > 0) item.done_chunks = new Set(done_chunks);
  return item;
}

export class DynamoImportJobs implements ImportJobs {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = documentClient(client);
  }

  /**
   * Puts this job's slot, then counts the slots of the window up to and
   * including it: of concurrent creates exactly the first `max` (by time,
   * then id) pass. A crash before the release leaves a slot taken for a day,
   * never an extra job.
   */
  async reserveDailySlot(ownerUid: string, jobId: string, at: Date, max: number): Promise<boolean> {
    const sk = `${at.toISOString()}#${jobId}`;
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: keys.importsBy(ownerUid), sk, job_id: jobId, expires_at: epochSeconds(at.getTime() + DAILY_WINDOW_MS) + 3600 },
      }),
    );
    // Strictly after the window start ("the previous 24 hours"): a slot made exactly 24 h ago sorts below this bound.
    const from = `${new Date(at.getTime() - DAILY_WINDOW_MS).toISOString()}#\uffff`;
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :mine',
          ExpressionAttributeValues: { ':pk': keys.importsBy(ownerUid), ':from': from, ':mine': sk },
          ConsistentRead: true,
          Select: 'COUNT',
          ExclusiveStartKey: start,
        }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    if (count <= max) return true;
    await this.releaseDailySlot(ownerUid, jobId, at);
    return false;
  }

  async releaseDailySlot(ownerUid: string, jobId: string, at: Date): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk: keys.importsBy(ownerUid), sk: `${at.toISOString()}#${jobId}` } }));
  }

  async acquireActiveLock(site: string, jobId: string, at: Date): Promise<boolean> {
    if (await this.putLock(site, jobId, at)) return true;
    const lock = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.importActive(site), ConsistentRead: true }));
    const holder = lock.Item?.job_id as string | undefined;
    if (!holder) return this.putLock(site, jobId, at);
    if (holder === jobId) return true;
    const job = await this.getJob(site, holder);
    const lockedAt = Date.parse(String(lock.Item?.locked_at ?? ''));
    const stale = job ? !isActive(job.status) : !(at.getTime() - lockedAt < ORPHAN_LOCK_MS);
    if (!stale) return false;
    await this.releaseActiveLock(site, holder);
    return this.putLock(site, jobId, at);
  }

  private putLock(site: string, jobId: string, at: Date): Promise<boolean> {
    return conditionHeld(() =>
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...keys.importActive(site),
            gsi1pk: keys.activeImports,
            gsi1sk: `${site}#${jobId}`,
            site,
            job_id: jobId,
            locked_at: at.toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async releaseActiveLock(site: string, jobId: string): Promise<void> {
    await unlessConditionFails(() =>
      this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: keys.importActive(site),
          ConditionExpression: 'job_id = :id',
          ExpressionAttributeValues: { ':id': jobId },
        }),
      ),
    );
  }

  async listActiveJobs(): Promise<{ site: string; id: string }[]> {
    const out: { site: string; id: string }[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: GSI1,
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.activeImports },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) out.push({ site: item.site as string, id: item.job_id as string });
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /**
   * Credentials first, then the job: a crash in between leaves an orphan
   * credentials item that its TTL removes, never a job without credentials.
   */
  async createJob(job: ImportJobRecord, sealedCredentials: string): Promise<void> {
    await this.putCredentials(job.site, job.id, sealedCredentials, new Date(job.created_at));
    await this.doc.send(new PutCommand({ TableName: this.table, Item: toItem(job), ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async getJob(site: string, id: string): Promise<ImportJobRecord | null> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.importJob(site, id), ConsistentRead: true }));
    return toJob(r.Item);
  }

  async listJobs(site: string, limit: number): Promise<ImportJobRecord[]> {
    const r = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.importJob(site, '').pk, ':prefix': keys.importJobPrefix },
        ScanIndexForward: false,
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return (r.Items ?? []).map((i) => toJob(i) as ImportJobRecord);
  }

  async getCredentials(site: string, id: string, at: Date): Promise<string | null> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.importCredentials(site, id), ConsistentRead: true }));
    const item = r.Item;
    if (!item || typeof item.sealed !== 'string') return null;
    // DynamoDB's TTL deletes within days of expiry, dynalite never: expiry is checked here.
    if (Number(item.expires_at) <= epochSeconds(at.getTime())) {
      await this.deleteCredentials(site, id);
      return null;
    }
    return item.sealed;
  }

  async putCredentials(site: string, id: string, sealed: string, at: Date): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.importCredentials(site, id), sealed, expires_at: epochSeconds(at.getTime() + CREDENTIALS_MAX_AGE_MS) },
      }),
    );
  }

  private async deleteCredentials(site: string, id: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: keys.importCredentials(site, id) }));
  }

  private async setCredentialsExpiry(site: string, id: string, atMs: number): Promise<void> {
    await unlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.importCredentials(site, id),
          UpdateExpression: 'SET expires_at = :exp',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':exp': epochSeconds(atMs) },
        }),
      ),
    );
  }

  /** The answer to a conditional update of the job, or null when its condition failed. */
  private updateJob(site: string, id: string, update: JobUpdate): Promise<UpdateCommandOutput | null> {
    return conditionalWrite(
      () => this.doc.send(new UpdateCommand({ TableName: this.table, Key: keys.importJob(site, id), ReturnValues: 'ALL_NEW', ...update })),
      () => null,
    );
  }

  async markRunning(site: string, id: string, attempt: number, at: Date): Promise<ImportJobRecord | null> {
    const r = await this.updateJob(site, id, {
      UpdateExpression: 'SET #s = :running, started_at = if_not_exists(started_at, :at)',
      ConditionExpression: 'attribute_exists(pk) AND attempt = :attempt AND #s IN (:queued, :running)',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':attempt': attempt, ':at': at.toISOString() },
    });
    return r && toJob(r.Attributes);
  }

  async recordChunk(site: string, id: string, chunk: number, counts: ChunkCounts): Promise<ImportJobRecord | null> {
    const r = await this.updateJob(site, id, {
      UpdateExpression: 'ADD done_chunks :chunkSet, chunks_done :one, rows_imported :imported, rows_skipped :skipped',
      ConditionExpression: 'attribute_exists(pk) AND NOT contains(done_chunks, :chunk)',
      ExpressionAttributeValues: {
        ':chunkSet': new Set([chunk]),
        ':chunk': chunk,
        ':one': 1,
        ':imported': counts.imported,
        ':skipped': counts.skipped,
      },
    });
    return r && toJob(r.Attributes);
  }

  /**
   * The status change first, then the lock, then the credentials: a crash
   * after the first write leaves a lock that the next acquire sees belongs to
   * an ended job and takes over, and credentials that their TTL removes.
   */
  async finish(
    site: string,
    id: string,
    change: { from: readonly ImportStatus[]; to: FinalStatus; at: Date; error: string | null; attempt?: number; credentialsExpireAt?: Date },
  ): Promise<ImportJobRecord | null> {
    const values: Record<string, unknown> = { ':to': change.to, ':at': change.at.toISOString(), ':error': change.error };
    const from = change.from.map((status, i) => {
      values[`:from${i}`] = status;
      return `:from${i}`;
    });
    let condition = `attribute_exists(pk) AND #s IN (${from.join(', ')})`;
    if (change.attempt !== undefined) {
      condition += ' AND attempt = :attempt';
      values[':attempt'] = change.attempt;
    }
    const r = await this.updateJob(site, id, {
      UpdateExpression: 'SET #s = :to, finished_at = :at, #e = :error',
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#s': 'status', '#e': 'error' },
      ExpressionAttributeValues: values,
    });
    if (!r) return null;
    await this.releaseActiveLock(site, id);
    if (change.to === 'succeeded') await this.deleteCredentials(site, id);
    else await this.setCredentialsExpiry(site, id, (change.credentialsExpireAt ?? change.at).getTime());
    return toJob(r.Attributes);
  }

  async requeue(site: string, id: string, at: Date): Promise<ImportJobRecord | null> {
    const r = await this.updateJob(site, id, {
      UpdateExpression: 'SET #s = :queued, attempt = attempt + :one, finished_at = :null, #e = :null',
      ConditionExpression: 'attribute_exists(pk) AND #s IN (:failed, :cancelled)',
      ExpressionAttributeNames: { '#s': 'status', '#e': 'error' },
      ExpressionAttributeValues: { ':queued': 'queued', ':failed': 'failed', ':cancelled': 'cancelled', ':one': 1, ':null': null },
    });
    if (!r) return null;
    await this.setCredentialsExpiry(site, id, at.getTime() + CREDENTIALS_MAX_AGE_MS);
    return toJob(r.Attributes);
  }
}
