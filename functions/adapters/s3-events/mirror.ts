/**
 * The S3 store's reader (issue 44): an in-memory DuckDB holding the rows of the site-days reports
 * asked for, loaded from the manifest's listed Parquet files (object-cache.ts) into the tables the
 * DuckDB dialect reads (events_main, events_fresh), so the report SQL is the local store's. A
 * site-day is loaded again when its listing changed (a batch, a compaction, a removal); the flags
 * the writer never stored (copies, first of day, an append's page) are decided here for the loaded
 * days and the two after them (flag-rules-sql.ts FlagRegion), as ClickHouse decides them at read.
 * Past its row budget the least recently used site-days no read holds are dropped.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { flagRuleStatements } from '#adapters/duckdb/flag-rules-sql.ts';
import { DuckDbReadPool, type QueryParams, type RowArrays } from '#adapters/duckdb/read-pool.ts';
import { FRESH_TABLE, MAIN_TABLE, STORED_COLUMNS, STORED_DEFS } from '#adapters/duckdb/schema.ts';
import { inTransaction } from '#adapters/duckdb/transaction.ts';
import { DAY_MS, dayRuns } from '#domain/rows/days.ts';
import { Serial } from '#domain/serial.ts';
import { sqlString } from '#domain/sql-literals.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { objectKey, type Manifest, type SiteDay } from './manifest.ts';
import type { ObjectCache } from './object-cache.ts';
import { distinctRows } from './parquet-files.ts';

/** Days loaded before a read's first: the rows a copy or an append's page of its first day may look back to, and theirs. */
const CONTEXT_DAYS = 3;
/** Rows kept by default: about 1.5 GB of DuckDB memory at some 300 bytes a row. */
export const DEFAULT_MIRROR_ROWS = 5_000_000;

const siteKey = (ref: SiteRef) => `${ref.site}|${ref.registration}`;
const dayKey = (ref: SiteRef, day: number) => `${siteKey(ref)}|${day}`;
/** What a site-day's rows are loaded from: its listed objects and their ETags ('' for none). */
const signatureOf = (listed: SiteDay | undefined) => (listed ? listed.files.map((f) => `${f.name}:${f.etag}`).join(',') : '');

interface Loaded {
  ref: SiteRef;
  day: number;
  signature: string;
  rows: number;
}

export class EventMirror {
  private readonly pool: DuckDbReadPool;
  /** Loaded site-days by dayKey, least recently used first. */
  private readonly loaded = new Map<string, Loaded>();
  private rows = 0;
  /** Site-days a read in flight holds: never dropped under it. */
  private readonly held = new Map<string, number>();
  /** Loads run one after another on the writer connection. */
  private readonly loads = new Serial();
  /** Loads asked for and not yet begun, by what they load: a read asking for the same shares it (its listing is read after the read began). */
  private readonly queued = new Map<string, Promise<void>>();

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly manifest: Manifest,
    private readonly cache: ObjectCache,
    private readonly budgetRows: number,
  ) {
    this.pool = new DuckDbReadPool(instance);
  }

  static async open(manifest: Manifest, cache: ObjectCache, budgetRows = DEFAULT_MIRROR_ROWS): Promise<EventMirror> {
    const instance = await DuckDBInstance.create(':memory:');
    const writer = await instance.connect();
    await writer.run(`CREATE TABLE ${MAIN_TABLE} (${STORED_DEFS})`);
    await writer.run(`CREATE TABLE ${FRESH_TABLE} (${STORED_DEFS})`);
    await writer.run(`CREATE VIEW events AS SELECT * FROM ${MAIN_TABLE} UNION ALL SELECT * FROM ${FRESH_TABLE}`);
    return new EventMirror(instance, writer, manifest, cache, budgetRows);
  }

  /**
   * Runs `read` once the rows of `sites` in [from, to) are loaded as the manifest lists them now,
   * with the days a read of that range looks at around it; the days stay loaded until it settles.
   */
  async over<T>(sites: readonly SiteRef[], from: number, to: number, read: () => Promise<T>): Promise<T> {
    const first = Math.floor(from / DAY_MS) - CONTEXT_DAYS;
    const last = Math.floor((Math.max(to, from + 1) - 1) / DAY_MS) + 1;
    const keys = sites.flatMap((ref) => Array.from({ length: last - first + 1 }, (_, i) => dayKey(ref, first + i)));
    for (const key of keys) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    try {
      await this.syncQueued(sites, first, last);
      return await read();
    } finally {
      for (const key of keys) {
        const n = (this.held.get(key) ?? 1) - 1;
        if (n === 0) this.held.delete(key);
        else this.held.set(key, n);
      }
    }
  }

  private syncQueued(sites: readonly SiteRef[], first: number, last: number): Promise<void> {
    const key = JSON.stringify([sites.map(siteKey), first, last]);
    let sync = this.queued.get(key);
    if (!sync) {
      sync = this.loads.run(() => {
        this.queued.delete(key);
        return this.sync(sites, first, last);
      });
      this.queued.set(key, sync);
    }
    return sync;
  }

  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    return this.pool.query<T>(sql, params);
  }

  rowArrays(sql: string, params?: QueryParams): Promise<RowArrays> {
    return this.pool.rows(sql, params);
  }

  /** Loads the site-days of first..last whose listing changed, decides the flags they move, then drops what is over the budget. */
  private async sync(sites: readonly SiteRef[], first: number, last: number): Promise<void> {
    for (const ref of sites) {
      const listed = new Map((await this.manifest.list(ref, first, last)).map((d) => [d.day, d]));
      const changed: { day: number; listed: SiteDay | undefined }[] = [];
      for (let day = first; day <= last; day++) {
        const key = dayKey(ref, day);
        const signature = signatureOf(listed.get(day));
        const known = this.loaded.get(key);
        if (known) this.loaded.delete(key);
        this.loaded.set(key, known ?? { ref, day, signature: '', rows: 0 });
        if ((known?.signature ?? '') !== signature) changed.push({ day, listed: listed.get(day) });
      }
      if (changed.length > 0) await this.load(ref, changed);
    }
    await this.drop();
  }

  private async load(ref: SiteRef, days: readonly { day: number; listed: SiteDay | undefined }[]): Promise<void> {
    // One fetch list for every day, so at most the cache's fetches in flight at once.
    const objects = days.map(({ day, listed }) => (listed?.files ?? []).map((f) => ({ key: objectKey(ref, day, f.name), etag: f.etag })));
    const fetched = await this.cache.paths(objects.flat());
    let at = 0;
    const files = objects.map((o) => fetched.slice(at, (at += o.length)));
    const site = `site = ${sqlString(ref.site)} AND registration = ${sqlString(ref.registration)}`;
    const paths = files.flat();
    const first = (days[0] as { day: number }).day;
    const last = (days[days.length - 1] as { day: number }).day;
    await inTransaction(this.writer, async () => {
      // One statement per run of days and one INSERT over every file: a cold read loads a year at once.
      for (const [lo, hi] of dayRuns(days.map((d) => d.day), Infinity)) {
        await this.writer.run(`DELETE FROM ${MAIN_TABLE} WHERE ${site} AND ts BETWEEN ${lo * DAY_MS} AND ${(hi + 1) * DAY_MS - 1}`);
      }
      const counts = new Map<number, number>();
      if (paths.length > 0) {
        await this.writer.run(`INSERT INTO ${MAIN_TABLE} (${STORED_COLUMNS}) SELECT *, false, false, NULL FROM (${distinctRows(paths)})`);
        const per = await this.writer.runAndReadAll(`SELECT ts // ${DAY_MS} AS day, count(*) AS n FROM ${MAIN_TABLE} WHERE ${site} AND ts BETWEEN ${first * DAY_MS} AND ${(last + 1) * DAY_MS - 1} GROUP BY 1`);
        for (const r of per.getRowObjectsJS()) counts.set(Number(r.day), Number(r.n));
      }
      for (const { day, listed } of days) this.setRows(dayKey(ref, day), { ref, day, signature: signatureOf(listed), rows: counts.get(day) ?? 0 });
      // A day's rows move the flags of its own day and the two after it (a copy's window, an append's page's copy).
      for (const [lo, hi] of dayRuns(days.map((d) => d.day), Infinity)) {
        for (const statement of flagRuleStatements([MAIN_TABLE], { ...ref, lo: lo * DAY_MS, hi: (hi + 3) * DAY_MS - 1 })) await this.writer.run(statement);
      }
    });
    this.cache.trim();
  }

  private setRows(key: string, entry: Loaded): void {
    this.rows += entry.rows - (this.loaded.get(key)?.rows ?? 0);
    this.loaded.set(key, entry);
  }

  /** Drops the least recently used site-days no read holds while over the budget. */
  private async drop(): Promise<void> {
    for (const [key, entry] of this.loaded) {
      if (this.rows <= this.budgetRows) return;
      if (this.held.has(key)) continue;
      if (entry.rows > 0) {
        const { ref, day } = entry;
        await this.writer.run(
          `DELETE FROM ${MAIN_TABLE} WHERE site = ${sqlString(ref.site)} AND registration = ${sqlString(ref.registration)} AND ts BETWEEN ${day * DAY_MS} AND ${day * DAY_MS + DAY_MS - 1}`,
        );
      }
      this.rows -= entry.rows;
      this.loaded.delete(key);
    }
  }

  close(): void {
    this.pool.close();
    this.writer.closeSync();
    this.instance.closeSync();
  }
}

