/**
 * No address and no user agent at rest (spec part 1; docs/privacy.md): after
 * pageviews, events and an append from one address and one user agent, no
 * table of the event store, no registry item and no file of the data
 * directory (the DuckDB file, dynalite's files, the receipt journals)
 * holds the address or the user-agent string. The rows keep what reports
 * need: the day's visitor hash, browser, OS and country from the timezone.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRESH_TABLE } from '#adapters/duckdb/duckdb-event-store.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const ADDRESS = '198.51.100.77';
const UA_MARK = 'ProbeKit/7.7.7-zq';
const UA = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 ${UA_MARK}`;

let svc: TestService;
let site: string;

beforeAll(async () => {
  svc = await startTestService({ TRUST_PROXY: '1' });
  site = await svc.site(await svc.token('no-ip-owner'), { prefix: 'no-ip' });
  const headers = { 'user-agent': UA, 'x-forwarded-for': ADDRESS };
  const id = randomUUID();
  for (const body of [
    { hostname: site, path: '/', ua: UA, id, timezone: 'Europe/Berlin' },
    { hostname: site, path: '/', ua: UA, type: 'event', event: 'signup', timezone: 'Europe/Berlin' },
    { hostname: site, type: 'append', original_id: id, duration: 12, scrolled: 80 },
  ]) {
    expect((await svc.req('POST', '/events', { raw: JSON.stringify(body), headers })).status).toBe(200);
  }
  await svc.node.runtime.eventQueue.drain();
});
afterAll(() => svc.stop());

/** Every text column of every table in the embedded DuckDB, as one text per row. */
async function duckdbTexts(): Promise<string[]> {
  const db = svc.node.runtime.duckdb!;
  const columns = await db.query<{ table_name: string; column_name: string }>(
    "SELECT table_name, column_name FROM information_schema.columns WHERE data_type = 'VARCHAR' AND table_schema = 'main'",
  );
  const texts: string[] = [];
  for (const c of columns) {
    const rows = await db.query<{ v: string }>(`SELECT "${c.column_name}" AS v FROM "${c.table_name}" WHERE "${c.column_name}" IS NOT NULL`);
    texts.push(...rows.map((r) => `${c.table_name}.${c.column_name}=${r.v}`));
  }
  return texts;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? filesUnder(path) : stat.isFile() ? [path] : [];
  });
}

describe('what is stored of a visit', () => {
  it('keeps the visit: a visitor hash, the browser, the OS and the country from the timezone', async () => {
    const rows = await svc.node.runtime.duckdb!.query<{ visitor: string | null; browser: string; os: string; country: string }>(
      `SELECT visitor, browser, os, country FROM ${FRESH_TABLE} WHERE site = $site AND kind = 'pageview'`,
      { site },
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ browser: 'Chrome', os: 'Linux', country: 'DE' });
    expect(rows[0]?.visitor).toMatch(/\S/);
  });

  it('holds neither the address nor the user agent in any event store column', async () => {
    const texts = await duckdbTexts();
    expect(texts.some((t) => t.includes(site))).toBe(true);
    expect(texts.filter((t) => t.includes(ADDRESS) || t.includes(UA_MARK))).toEqual([]);
  });

  it('holds neither in any registry item', async () => {
    const { Items = [] } = await svc.node.runtime.store.send(new ScanCommand({ TableName: svc.node.services.config.tableName }));
    const items = JSON.stringify(Items);
    expect(items).toContain(site);
    expect([items.includes(ADDRESS), items.includes(UA_MARK)]).toEqual([false, false]);
  });

  it('holds neither in any file of the data directory', async () => {
    const files = filesUnder(svc.dataDir).map((f) => ({ f, bytes: readFileSync(f) }));
    // The scan sees stored text: the site's name is in some file.
    expect(files.some(({ bytes }) => bytes.includes(site))).toBe(true);
    expect(files.filter(({ bytes }) => bytes.includes(ADDRESS) || bytes.includes(UA_MARK)).map(({ f }) => f)).toEqual([]);
  });
});
