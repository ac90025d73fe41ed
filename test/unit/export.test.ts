/** The export's pure parts (issue 42): the column allow-list, the query, CSV and NDJSON lines, and the paging plan. */
import { describe, expect, it } from 'vitest';
import { API_EXPORT_COLUMNS, EVENT_EXPORT_COLUMNS, EXPORT_COLUMNS } from '#domain/export/columns.ts';
import { encodeRows, fileHeader, type ExportRow } from '#domain/export/encode.ts';
import { exportPages, type PageRequest } from '#domain/export/pages.ts';
import { exportFileName } from '#domain/export/file-name.ts';
import { parseExportQuery } from '#domain/export/request.ts';
import { readFileSync } from 'node:fs';
import { COLUMNS as DUCKDB_COLUMNS } from '#adapters/duckdb/schema.ts';

const NOW = new Date('2026-03-15T23:30:00Z');

describe('the column allow-list', () => {
  it('never names the visitor hash, the session id, the registration or the site', () => {
    for (const columns of Object.values(EXPORT_COLUMNS)) {
      for (const forbidden of ['visitor', 'session_id', 'registration', 'site', 'visitor_key', 'id_key', 'parent_key']) {
        expect(columns.map((c) => c.stored)).not.toContain(forbidden);
      }
    }
  });

  it('reads only stored event columns, each once, starting with the time', () => {
    const stored = new Set<string>(DUCKDB_COLUMNS.map((c) => c.name));
    expect(EVENT_EXPORT_COLUMNS.filter((c) => !stored.has(c.stored))).toEqual([]);
    expect(new Set(EVENT_EXPORT_COLUMNS.map((c) => c.name)).size).toBe(EVENT_EXPORT_COLUMNS.length);
    expect([EVENT_EXPORT_COLUMNS[0]?.name, API_EXPORT_COLUMNS[0]?.name]).toEqual(['time', 'time']);
  });
});

describe('docs/export.md', () => {
  it('lists each series’ columns in order with their types, and nothing else', () => {
    const page = readFileSync(new URL('../../docs/export.md', import.meta.url), 'utf8');
    for (const [series, columns] of Object.entries(EXPORT_COLUMNS)) {
      const section = page.split(`### series=${series}`)[1]?.split('\n\n')[1] ?? '';
      const rows = section.split('\n').slice(2).map((line) => /^\| `([a-z_]+)` \| ([a-z]+)(, may be empty)? \|/.exec(line)?.slice(1, 4));
      expect(rows, series).toEqual(columns.map((c) => [c.name, c.type, c.nullable ? ', may be empty' : undefined]));
    }
  });
});

describe('parseExportQuery', () => {
  it('defaults to CSV of events over the 30 days to today (UTC)', () => {
    const q = parseExportQuery({}, NOW);
    expect(q).toEqual({ ok: true, value: { series: 'events', format: 'csv', fromDay: '2026-02-14', toDay: '2026-03-15', tz: 'UTC', from: Date.parse('2026-02-14T00:00:00Z'), to: Date.parse('2026-03-16T00:00:00Z') } });
  });

  it("takes today and the days in tz (Tokyo's 16 March has begun)", () => {
    const q = parseExportQuery({ tz: 'Asia/Tokyo', series: 'api', format: 'ndjson' }, NOW);
    expect(q.ok && [q.value.series, q.value.format, q.value.fromDay, q.value.toDay, new Date(q.value.from).toISOString(), new Date(q.value.to).toISOString()]).toEqual([
      'api', 'ndjson', '2026-02-15', '2026-03-16', '2026-02-14T15:00:00.000Z', '2026-03-16T15:00:00.000Z',
    ]);
  });

  it('checks series, format, range and timezone in that order', () => {
    const error = (query: Record<string, string>) => {
      const q = parseExportQuery(query, NOW);
      return q.ok ? null : q.error;
    };
    expect(error({ series: 'x', format: 'x', from: 'x', tz: 'x' })).toBe('series must be events or api');
    expect(error({ format: 'x', from: 'x', tz: 'x' })).toBe('format must be csv or ndjson');
    expect(error({ from: '2026-13-01', tz: 'x' })).toBe('invalid range');
    expect(error({ to: '2026-03-01', from: '2026-03-02' })).toBe('invalid range');
    expect(error({ to: '1767225600' })).toBe('invalid range');
    expect(error({ tz: 'Nowhere/Else' })).toBe('invalid timezone');
    expect(error({ from: '2026-03-01', to: '2026-03-01' })).toBe(null);
  });

  it('names the file after the site, the series and the days', () => {
    expect(exportFileName('example.com', { series: 'api', format: 'ndjson', fromDay: '2026-01-01', toDay: '2026-01-31' })).toBe('example.com-api-2026-01-01-2026-01-31.ndjson');
  });
});

describe('encodeRows', () => {
  const columns = API_EXPORT_COLUMNS;
  const row = (over: Record<string, unknown> = {}): ExportRow => ({ ts: 1767225600123n, id: 'r1', method: 'GET', route: '/a', status: 200, duration_ms: 1.5, bytes_in: null, bytes_out: 10n, consumer: null, ...over });

  it('writes CSV after RFC 4180: a header, CRLF, quotes only where needed and doubled', () => {
    expect(fileHeader('csv', columns)).toBe('time,id,method,route,status,duration_ms,bytes_in,bytes_out,consumer\r\n');
    const text = encodeRows('csv', columns, [row(), row({ id: 'r2', route: '/a,b', consumer: 'say "hi"\nthere' })]);
    expect(text).toBe('2026-01-01T00:00:00.123Z,r1,GET,/a,200,1.5,,10,\r\n2026-01-01T00:00:00.123Z,r2,GET,"/a,b",200,1.5,,10,"say ""hi""\nthere"\r\n');
  });

  it('prefixes CSV text a spreadsheet would run as a formula, never numbers; NDJSON keeps the text as stored', () => {
    const risky = row({ consumer: '=HYPERLINK("x")', route: '-1+2', status: -1 });
    expect(encodeRows('csv', columns, [risky])).toBe(`2026-01-01T00:00:00.123Z,r1,GET,"'-1+2",-1,1.5,,10,"'=HYPERLINK(""x"")"\r\n`);
    expect(JSON.parse(encodeRows('ndjson', columns, [risky]))).toMatchObject({ consumer: '=HYPERLINK("x")', route: '-1+2', status: -1 });
  });

  it('writes NDJSON: one object per line, keys in column order, bigints as numbers, nulls kept, no header', () => {
    expect(fileHeader('ndjson', columns)).toBe('');
    const text = encodeRows('ndjson', columns, [row()]);
    expect(text).toBe('{"time":"2026-01-01T00:00:00.123Z","id":"r1","method":"GET","route":"/a","status":200,"duration_ms":1.5,"bytes_in":null,"bytes_out":10,"consumer":null}\n');
    expect(encodeRows('ndjson', columns, [])).toBe('');
  });
});

describe('exportPages', () => {
  /** A store over `rows` (sorted by ts, id) that counts the rows each read had to look at (its window after the cursor). */
  function store(rows: { ts: number; id: string }[]) {
    const reads: { page: PageRequest; scanned: number }[] = [];
    const after = (r: { ts: number; id: string }, c: PageRequest['after']) => !c || r.ts > c.ts || (r.ts === c.ts && r.id > c.id);
    const read = async (page: PageRequest) => {
      const inWindow = rows.filter((r) => r.ts >= page.from && r.ts < page.to && after(r, page.after));
      reads.push({ page, scanned: inWindow.length });
      return inWindow.slice(0, page.limit);
    };
    return { read, reads };
  }
  const collect = async (read: (p: PageRequest) => Promise<readonly ExportRow[]>, range: { from: number; to: number }, limit: number) => {
    const out: ExportRow[] = [];
    for await (const page of exportPages(read, range, limit)) {
      expect(page.length).toBeLessThanOrEqual(limit);
      out.push(...page);
    }
    return out;
  };

  it('gives every row once in order: a burst at one millisecond, a busy hour, quiet months', async () => {
    const rows = [
      ...Array.from({ length: 25 }, (_, i) => ({ ts: 10, id: `b${String(i).padStart(2, '0')}` })),
      ...Array.from({ length: 200 }, (_, i) => ({ ts: 3_600_000 + i * 1_000, id: `h${i}` })),
      ...Array.from({ length: 12 }, (_, i) => ({ ts: 86_400_000 * 30 * (i + 1), id: `m${i}` })),
    ];
    const s = store(rows);
    const range = { from: 0, to: 86_400_000 * 400 };
    expect((await collect(s.read, range, 10)).map((r) => r.id)).toEqual(rows.map((r) => r.id));
    // Windows adapt: the reads look at a few times the rows in all (one window over everything would look at
    // each row again for every page before it: about 2,900 here), and a quiet year takes few reads.
    const scanned = s.reads.reduce((sum, r) => sum + r.scanned, 0);
    expect(scanned).toBeLessThanOrEqual(3 * rows.length);
    expect(s.reads.length).toBeLessThan(120);
  });

  it('reads nothing outside the range and ends on an empty one', async () => {
    const s = store([{ ts: 5, id: 'a' }, { ts: 50, id: 'b' }]);
    expect((await collect(s.read, { from: 6, to: 50 }, 10)).map((r) => r.id)).toEqual([]);
    expect(s.reads.every((r) => r.page.from >= 6 && r.page.to <= 50)).toBe(true);
  });
});
