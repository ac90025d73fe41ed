/**
 * The manifest of the S3 event store (issue 44): one DynamoDB item per site-day listing the
 * Parquet objects that hold its rows. Readers take only listed objects, so an object put but not
 * yet listed (a writer that died in between) or replaced by compaction is never read twice or
 * half. Every change is a conditional write on the item's version: two writers listing files of
 * one site-day, or a compaction swapping them, never lose each other's entry.
 */
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ResourceNotFoundException,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { SiteRef } from '#ports/report-store.ts';

/** One listed Parquet object: its name within the site-day's prefix, the ETag S3 gave it, and its rows. */
export interface ListedFile {
  name: string;
  etag: string;
  rows: number;
}

/** A file compaction replaced, no longer listed: deleted once no read that listed it can still be running. */
export interface RetiredFile {
  name: string;
  /** When it was replaced, Unix ms. */
  at: number;
}

export interface SiteDay {
  ref: SiteRef;
  day: number;
  files: ListedFile[];
  retired: RetiredFile[];
  /** Bumped by every change; 0 for a site-day not listed yet. */
  version: number;
}

/** Attempts at a conditional write before the conflict is reported (each loses only to another writer's success). */
const ATTEMPTS = 20;

/** The partition of a site registration: hostnames hold no `|`. */
const pkOf = (ref: SiteRef) => `${ref.site}|${ref.registration}`;
const refOf = (pk: string): SiteRef => {
  const at = pk.indexOf('|');
  return { site: pk.slice(0, at), registration: pk.slice(at + 1) };
};

/** The object key of a listed file: under its registration, site and day, so a site's objects share a prefix. */
export const objectKey = (ref: SiteRef, day: number, name: string) => `events/${encodeURIComponent(ref.registration)}/${encodeURIComponent(ref.site)}/${day}/${name}`;

function encodeFiles(files: readonly ListedFile[]): AttributeValue {
  return { S: JSON.stringify(files.map((f) => [f.name, f.etag, f.rows])) };
}

function decode(item: Record<string, AttributeValue>): SiteDay {
  const files = (JSON.parse(item.files?.S ?? '[]') as [string, string, number][]).map(([name, etag, rows]) => ({ name, etag, rows }));
  const retired = (JSON.parse(item.retired?.S ?? '[]') as [string, number][]).map(([name, at]) => ({ name, at }));
  return { ref: refOf(item.pk?.S ?? '|'), day: Number(item.day?.N), files, retired, version: Number(item.version?.N ?? 0) };
}

/** What a change writes: the listed files, and the retired ones (unchanged when absent). */
export interface SiteDayChange {
  files: ListedFile[];
  retired?: RetiredFile[];
}

export class Manifest {
  constructor(
    private readonly dynamo: DynamoDBClient,
    readonly table: string,
  ) {}

  /** Creates the table when missing (local runs and tests; the stack creates it on AWS). */
  async ensureTable(): Promise<void> {
    try {
      await this.dynamo.send(new DescribeTableCommand({ TableName: this.table }));
      return;
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException)) throw e;
    }
    await this.dynamo.send(
      new CreateTableCommand({
        TableName: this.table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'day', AttributeType: 'N' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'day', KeyType: 'RANGE' },
        ],
      }),
    );
  }

  async get(ref: SiteRef, day: number): Promise<SiteDay> {
    const r = await this.dynamo.send(new GetItemCommand({ TableName: this.table, Key: { pk: { S: pkOf(ref) }, day: { N: String(day) } }, ConsistentRead: true }));
    return r.Item ? decode(r.Item) : { ref, day, files: [], retired: [], version: 0 };
  }

  /** The listed site-days of `ref` in first..last (day numbers), ascending; days with no item are absent. */
  async list(ref: SiteRef, first: number, last: number): Promise<SiteDay[]> {
    const days: SiteDay[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const r = await this.dynamo.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND #day BETWEEN :first AND :last',
          ExpressionAttributeNames: { '#day': 'day' },
          ExpressionAttributeValues: { ':pk': { S: pkOf(ref) }, ':first': { N: String(first) }, ':last': { N: String(last) } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of r.Items ?? []) days.push(decode(item));
      start = r.LastEvaluatedKey;
    } while (start);
    return days;
  }

  /** The site's earliest listed day, or null. */
  async firstDay(ref: SiteRef): Promise<number | null> {
    const r = await this.dynamo.send(
      new QueryCommand({ TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pkOf(ref) } }, Limit: 1, ConsistentRead: true }),
    );
    const item = r.Items?.[0];
    return item ? Number(item.day?.N) : null;
  }

  /** Every site registration with a listed file. */
  async sites(): Promise<SiteRef[]> {
    const seen = new Set<string>();
    for (const day of await this.all()) if (day.files.length > 0) seen.add(`${day.ref.site}|${day.ref.registration}`);
    return [...seen].sort().map(refOf);
  }

  /** The site-days compaction has work on: several files, or retired ones. */
  async pending(): Promise<SiteDay[]> {
    return (await this.all()).filter((d) => d.files.length > 1 || d.retired.length > 0);
  }

  private async all(): Promise<SiteDay[]> {
    const days: SiteDay[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const r = await this.dynamo.send(new ScanCommand({ TableName: this.table, ExclusiveStartKey: start, ConsistentRead: true }));
      for (const item of r.Items ?? []) days.push(decode(item));
      start = r.LastEvaluatedKey;
    } while (start);
    return days;
  }

  /**
   * Changes a site-day's list: `change` gets the current entry and answers the new file list
   * (null: nothing to change), written only if no other change came in between (else read again
   * and retried). An empty list removes the item. Returns the entry as written (or as found).
   */
  async update(ref: SiteRef, day: number, change: (current: SiteDay) => ListedFile[] | null): Promise<SiteDay> {
    return this.change(ref, day, (current) => {
      const files = change(current);
      return files === null ? null : { files };
    });
  }

  /** As update, the retired files too: the item goes once neither lists any file. */
  async change(ref: SiteRef, day: number, change: (current: SiteDay) => SiteDayChange | null): Promise<SiteDay> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const current = await this.get(ref, day);
      const next = change(current);
      if (next === null) return current;
      const files = next.files;
      const retired = next.retired ?? current.retired;
      const key = { pk: { S: pkOf(ref) }, day: { N: String(day) } };
      const condition =
        current.version === 0
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': { N: String(current.version) } } };
      try {
        const empty = files.length === 0 && retired.length === 0;
        if (empty) {
          if (current.version === 0) return current;
          await this.dynamo.send(new DeleteItemCommand({ TableName: this.table, Key: key, ...condition }));
        } else {
          const encodedRetired = { S: JSON.stringify(retired.map((r) => [r.name, r.at])) };
          const item = { ...key, files: encodeFiles(files), retired: encodedRetired, version: { N: String(current.version + 1) } };
          await this.dynamo.send(new PutItemCommand({ TableName: this.table, Item: item, ...condition }));
        }
        return { ref, day, files, retired, version: empty ? 0 : current.version + 1 };
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
      }
    }
    throw new Error(`manifest: ${ATTEMPTS} conflicting writes on ${pkOf(ref)} day ${day}`);
  }
}
