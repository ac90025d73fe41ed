import { QueryCommand, TimestreamQueryClient, ValidationException, type ColumnInfo, type QueryCommandOutput, type Row } from '@aws-sdk/client-timestream-query';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { FilterClause } from '#domain/reports/filter.ts';
import { sqlIdentifier, sqlInteger, sqlString } from '#domain/sql-literals.ts';
import { bucketExpression, filterSql, sqlLimit, sqlNumber } from '#reports/sql/text.ts';
import { TimestreamSql } from '#reports/sql/dialects/timestream.ts';
import { TimestreamReportStore, parseRow } from '#adapters/timestream/timestream-report-store.ts';

const timestream = mockClient(TimestreamQueryClient);
const newStore = () => new TimestreamReportStore(new TimestreamQueryClient({ region: 'eu-west-1' }), 'tt-db', 'events');
const sent = () => timestream.commandCalls(QueryCommand).map((c) => c.args[0].input);
const sqls = () => sent().map((i) => i.QueryString ?? '');
const meta = { $metadata: {} };

type Cell = string | number | boolean | null;
/** A Timestream answer: every column typed by its name's prefix in `types`, values as the service prints them. */
function answer(types: Record<string, string>, rows: Record<string, Cell>[], NextToken?: string): QueryCommandOutput {
  const names = Object.keys(types);
  const ColumnInfo: ColumnInfo[] = names.map((Name) => ({ Name, Type: { ScalarType: types[Name] as 'VARCHAR' } }));
  const Rows: Row[] = rows.map((r) => ({
    Data: names.map((n) => (r[n] === null || r[n] === undefined ? { NullValue: true } : { ScalarValue: String(r[n]) })),
  }));
  return { ...meta, QueryId: 'q', ColumnInfo, Rows, ...(NextToken ? { NextToken } : {}) };
}

/** Answers each query by the first matching SQL fragment. */
function answerBy(routes: [RegExp, QueryCommandOutput][]) {
  timestream.on(QueryCommand).callsFake((input: { QueryString: string }) => {
    const route = routes.find(([re]) => re.test(input.QueryString));
    return route ? route[1] : answer({}, []);
  });
}

/** The SQL with every string literal removed: what is left must be the query's own text. */
/** The Timestream dialect over a table with every column. */
const dialect = new TimestreamSql({ database: 'tt-db', table: 'events', has: () => true });

const outsideLiterals = (sql: string) => sql.replace(/'(?:[^']|'')*'/g, "''");

const H = 3_600_000;
const DAY = 24 * H;
/** The copy test of domain/rows/copies.ts: a row counts unless the previous row of its id is at most a day older. */
const COPY_TEST = `lag("ts") OVER (PARTITION BY "site", "id" ORDER BY "ts") AS "previous_ts"`;
const T0 = Date.UTC(2024, 4, 1);
const A = { site: 'a.example', registration: 'reg-a' };
const scope = (filters: FilterClause[] = []) => ({ ...A, from: T0, to: T0 + 24 * H, filters });

afterEach(() => {
  timestream.reset();
});

describe('Timestream SQL literals', () => {
  it('doubles single quotes, keeps backslashes literal and splices a NUL in as chr(0)', () => {
    expect(sqlString("O'Brien")).toBe("'O''Brien'");
    expect(sqlString("\\'")).toBe("'\\'''");
    expect(sqlString('a\\b')).toBe("'a\\b'");
    expect(sqlString('')).toBe("''");
    expect(sqlString('a\u0000b')).toBe("concat('a', chr(0), 'b')");
    expect(sqlString("\u0000'")).toBe("concat('', chr(0), '''')");
  });

  it('round-trips any NUL-free string as exactly one literal', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }).filter((s) => !s.includes('\u0000')), (s) => {
        const literal = sqlString(s);
        expect(literal).toMatch(/^'(?:[^']|'')*'$/s);
        expect(literal.slice(1, -1).replaceAll("''", "'")).toBe(s);
      }),
    );
  });

  it('quotes identifiers and inlines only validated numbers', () => {
    expect(sqlIdentifier('my"db')).toBe('"my""db"');
    expect(() => sqlIdentifier('')).toThrow(RangeError);
    expect(sqlInteger(1714521600000)).toBe('1714521600000');
    for (const bad of [1.5, Number.NaN, Infinity, 2 ** 53]) expect(() => sqlInteger(bad)).toThrow(RangeError);
    expect(() => sqlLimit(-1)).toThrow(RangeError);
    expect(sqlNumber(2.5)).toBe('2.5');
    expect(() => sqlNumber(Number.NaN)).toThrow(RangeError);
  });

  it('builds the bucket index as a comparison tree over ts', () => {
    expect(bucketExpression(dialect, [0, 10])).toBe('0');
    expect(bucketExpression(dialect, [0, 10, 20, 30])).toBe('(CASE WHEN "ts" < 10 THEN 0 ELSE (CASE WHEN "ts" < 20 THEN 1 ELSE 2 END) END)');
    expect(() => bucketExpression(dialect, [0, Number.NaN, 20])).toThrow(RangeError);
  });

  it('compares filters on coalesce(column, \'\') and tests contains with strpos', () => {
    const sql = filterSql(dialect, [
      { dim: 'page', op: 'eq', value: '/a' },
      { dim: 'country', op: 'neq', value: '' },
      { dim: 'referrer', op: 'contains', value: '%_' },
      { dim: 'utm_source', op: 'contains', value: '' },
    ]);
    expect(sql).toBe(` AND coalesce("path", '') = '/a' AND coalesce("country", '') <> '' AND strpos(coalesce("referrer_host", ''), '%_') > 0`);
  });
});

describe('TimestreamReportStore queries', () => {
  it('counts canonical human pageviews per bucket and over the range, and joins engagement', async () => {
    answerBy([
      [/array_sort/, answer({ site: 'VARCHAR', bucket: 'INTEGER', scrolled: 'DOUBLE', duration: 'DOUBLE' }, [
        { site: 'a.example', bucket: 1, scrolled: 60, duration: 7 },
        { site: 'a.example', bucket: null, scrolled: 55.5, duration: 12 },
      ])],
      // Timestream returns groups in no particular order: buckets come back sorted.
      [/CASE WHEN "ts" </, answer({ site: 'VARCHAR', bucket: 'INTEGER', pageviews: 'BIGINT', visitors: 'BIGINT' }, [
        { site: 'a.example', bucket: 1, pageviews: 3, visitors: 3 },
        { site: 'a.example', bucket: 0, pageviews: 2, visitors: 1 },
      ])],
      [/"pageviews"/, answer({ site: 'VARCHAR', bucket: 'INTEGER', pageviews: 'BIGINT', visitors: 'BIGINT' }, [
        { site: 'a.example', bucket: null, pageviews: 5, visitors: 4 },
      ])],
    ]);
    const rows = await newStore().traffic({ sites: [A, { site: "b'.example", registration: "reg-'b" }], boundaries: [T0, T0 + H, T0 + 2 * H], filters: [] });
    expect(rows).toEqual([
      { site: 'a.example', bucket: 0, pageviews: 2, visitors: 1, duration: null, scrolled: null },
      { site: 'a.example', bucket: 1, pageviews: 3, visitors: 3, duration: 7, scrolled: 60 },
      { site: 'a.example', bucket: null, pageviews: 5, visitors: 4, duration: 12, scrolled: 55.5 },
    ]);
    const all = sqls();
    expect(all).toHaveLength(3);
    const counts = all.filter((s) => s.includes('"pageviews"'));
    for (const sql of counts) {
      expect(sql).toContain(`measure_name IN ('pageview')`);
      expect(sql).toContain(`"site" IN ('a.example', 'b''.example')`);
      // A day before the range is read to tell copies (domain/rows/copies.ts), and only the range is counted.
      expect(sql).toContain(`time >= from_milliseconds(${T0 - DAY}) AND time < from_milliseconds(${T0 + 2 * H})`);
      expect(sql).toContain(COPY_TEST);
      expect(sql).toContain(`("ts" >= ${T0} AND "ts" < ${T0 + 2 * H})) AND ("previous_ts" IS NULL OR "ts" - "previous_ts" > ${DAY})`);
      expect(sql).toContain('NOT coalesce("bot", false)');
      expect(sql).toContain('count(*) AS "pageviews"');
      expect(sql).toContain('count(DISTINCT "visitor") + count(CASE WHEN "visitor" IS NULL AND coalesce("unique", false) THEN 1 END)');
      expect(sql).toContain('to_milliseconds(time) AS "ts"');
      expect(sql).toContain('FROM "tt-db"."events"');
    }
    expect(counts.filter((s) => s.includes(`(CASE WHEN "ts" < ${T0 + H} THEN 0 ELSE 1 END) AS "bucket"`))).toHaveLength(1);
    expect(counts.filter((s) => s.includes('0 AS "bucket"') && !s.includes('CASE WHEN "ts" <'))).toHaveLength(1);
    const engagement = all.find((s) => s.includes('array_sort'))!;
    // Canonical appends up to a day after the range, each joined to the canonical page of its original_id at most a day before it.
    expect(engagement).toContain(`measure_name IN ('append') AND "site" IN ('a.example', 'b''.example') AND "registration" IN ('reg-a', 'reg-''b') AND time >= from_milliseconds(${T0 - DAY}) AND time < from_milliseconds(${T0 + 2 * H + DAY})`);
    expect(engagement).toMatch(new RegExp(`a\\."original_id" = pv\\."id"\\s+WHERE a\\."ts" >= pv\\."ts" AND a\\."ts" <= pv\\."ts" \\+ ${DAY}\\b`));
    expect(engagement).toContain('GROUP BY pv."site", pv."id", pv."ts"');
    expect(engagement).toContain('coalesce(pv."duration", 0) + coalesce(ap."duration", 0)');
    expect(engagement).toContain('greatest(coalesce(pv."scrolled", ap."scrolled"), coalesce(ap."scrolled", pv."scrolled"))');
    expect(engagement.split(COPY_TEST)).toHaveLength(3); // pageviews and appends
    expect(engagement).toContain('CASE WHEN "total_duration" >= 5 THEN "total_duration" END');
    expect(engagement).toContain('element_at("sorted", "n" / 2 + 1)');
    expect(engagement).toContain('UNION ALL');
    expect(engagement).toContain('avg("scroll")');
  });

  it('treats a single bucket as the whole range and skips the per-bucket query', async () => {
    answerBy([
      [/array_sort/, answer({ site: 'VARCHAR', bucket: 'INTEGER', scrolled: 'DOUBLE', duration: 'DOUBLE' }, [
        { site: 'a.example', bucket: 0, scrolled: null, duration: 9.5 },
        { site: 'a.example', bucket: null, scrolled: null, duration: 9.5 },
      ])],
      [/"pageviews"/, answer({ site: 'VARCHAR', bucket: 'INTEGER', pageviews: 'BIGINT', visitors: 'BIGINT' }, [
        { site: 'a.example', bucket: null, pageviews: 3, visitors: 2 },
      ])],
    ]);
    const rows = await newStore().traffic({ sites: [A], boundaries: [T0, T0 + H], filters: [] });
    expect(rows).toEqual([
      { site: 'a.example', bucket: 0, pageviews: 3, visitors: 2, duration: 9.5, scrolled: null },
      { site: 'a.example', bucket: null, pageviews: 3, visitors: 2, duration: 9.5, scrolled: null },
    ]);
    expect(sqls()).toHaveLength(2);
  });

  it('answers nothing for no sites without asking Timestream', async () => {
    const store = newStore();
    expect(await store.traffic({ sites: [], boundaries: [T0, T0 + H], filters: [] })).toEqual([]);
    expect(await store.liveVisitors([], T0)).toEqual(new Map());
    expect(sent()).toHaveLength(0);
  });

  it('counts live visitors by hash over pageviews and events since a time', async () => {
    answerBy([[/"visitors"/, answer({ site: 'VARCHAR', visitors: 'BIGINT' }, [{ site: 'a.example', visitors: 2 }])]]);
    expect(await newStore().liveVisitors([A], T0)).toEqual(new Map([['a.example', 2]]));
    const [sql] = sqls();
    expect(sql).toContain(`measure_name IN ('pageview', 'event')`);
    expect(sql).toContain(`time >= from_milliseconds(${T0}))`);
    expect(sql).not.toContain('time < ');
    expect(sql).toContain('"visitor" IS NOT NULL');
    expect(sql).toContain('NOT coalesce("bot", false)');
  });

  it('breaks canonical pageviews down by label: value desc then name, limited', async () => {
    answerBy([[/"label"/, answer({ name: 'VARCHAR', value: 'BIGINT', visitors: 'BIGINT' }, [
      { name: '/a', value: 2, visitors: 2 },
      { name: '', value: 1, visitors: 1 },
    ])]]);
    const store = newStore();
    expect(await store.breakdown(scope(), 'pages', 7)).toEqual([{ name: '/a', value: 2, visitors: 2 }, { name: '', value: 1, visitors: 1 }]);
    await store.breakdown(scope(), 'countries', 10);
    await store.breakdown(scope(), 'entry_pages', 10);
    await store.breakdown(scope(), 'screens', 10);
    const [pages, countries, entry, screens] = sqls();
    expect(pages).toContain('SELECT "path" AS "label", "visitor", "unique"');
    expect(pages).toContain(COPY_TEST);
    expect(pages).toContain('count(DISTINCT "visitor") + count(CASE WHEN "visitor" IS NULL AND coalesce("unique", false) THEN 1 END) AS "visitors"');
    expect(pages).toContain('ORDER BY "value" DESC, "name" ASC');
    expect(pages).toContain('LIMIT 7');
    expect(pages).not.toContain(`<> ''`); // pages keep the empty label
    expect(countries).toContain('SELECT "country" AS "label"');
    expect(countries).toContain(`WHERE coalesce("label", '') <> ''`);
    expect(entry).toContain(`AND coalesce("unique", false)`);
    expect(entry).toContain(`WHERE coalesce("label", '') <> ''`);
    expect(screens).toContain(`CASE WHEN "screen_width" IS NULL OR "screen_width" <= 0 THEN NULL WHEN "screen_width" < 576 THEN 'Mobile'`);
    expect(screens).toContain(`ELSE 'Desktop' END`);
    for (const sql of sqls()) {
      expect(sql).toContain(
        `measure_name IN ('pageview') AND "site" IN ('a.example') AND "registration" IN ('reg-a') AND time >= from_milliseconds(${T0 - DAY}) AND time < from_milliseconds(${T0 + 24 * H})`,
      );
    }
  });

  it('breaks events down by name with last_seen, and totals them', async () => {
    answerBy([
      [/"last_seen"/, answer({ name: 'VARCHAR', value: 'BIGINT', visitors: 'BIGINT', last_seen: 'BIGINT' }, [
        { name: 'signup', value: 2, visitors: 1, last_seen: T0 + 2 * H },
      ])],
      [/"count"/, answer({ count: 'BIGINT', visitors: 'BIGINT' }, [{ count: 3, visitors: 2 }])],
    ]);
    const store = newStore();
    expect(await store.breakdown(scope(), 'events', 5)).toEqual([{ name: 'signup', value: 2, visitors: 1, last_seen: T0 + 2 * H }]);
    expect(await store.eventTotals(scope())).toEqual({ count: 3, visitors: 2 });
    const [events, totals] = sqls();
    for (const sql of [events!, totals!]) {
      expect(sql).toContain(`measure_name IN ('event')`);
      expect(sql).toContain(`coalesce("event", '') <> ''`);
      expect(sql).toContain(COPY_TEST);
      expect(sql).toMatch(/count\(\*\) AS "(value|count)"/);
      expect(sql).toContain('NOT coalesce("bot", false)');
    }
    expect(events).toContain('max("ts") AS "last_seen"');
    expect(events).toContain('LIMIT 5');
  });

  it('lists live pages by distinct visitor hashes', async () => {
    answerBy([[/"path"/, answer({ name: 'VARCHAR', visitors: 'BIGINT' }, [{ name: null, visitors: 1 }, { name: '/now', visitors: 1 }])]]);
    expect(await newStore().livePages({ ...A, since: T0, filters: [] }, 5)).toEqual([
      { name: '', visitors: 1 },
      { name: '/now', visitors: 1 },
    ]);
    const [sql] = sqls();
    expect(sql).toContain('"visitor" IS NOT NULL');
    expect(sql).toContain('ORDER BY "visitors" DESC, "name" ASC');
    expect(sql).toContain('LIMIT 5');
  });

  it('counts engagement thresholds over canonical pages', async () => {
    answerBy([[/"measured"/, answer({ measured: 'BIGINT', scroll_measured: 'BIGINT', d0: 'BIGINT', d1: 'BIGINT', s0: 'BIGINT' }, [
      { measured: 4, scroll_measured: 2, d0: 3, d1: 2, s0: 2 },
    ])]]);
    expect(await newStore().engagement(scope(), [5, 10], [25])).toEqual({
      measured: 4,
      scrollMeasured: 2,
      durationAtLeast: { 5: 3, 10: 2 },
      scrollAtLeast: { 25: 2 },
    });
    const [sql] = sqls();
    expect(sql).toContain('count(CASE WHEN "total_duration" >= 5 THEN 1 END) AS "d0"');
    expect(sql).toContain('count(CASE WHEN "total_duration" >= 10 THEN 1 END) AS "d1"');
    expect(sql).toContain('count(CASE WHEN "scroll" >= 25 THEN 1 END) AS "s0"');
    expect(sql).toContain(`measure_name IN ('append')`);
  });

  it('refuses an invalid limit or range before asking Timestream', async () => {
    const store = newStore();
    await expect(store.breakdown(scope(), 'pages', 1.5)).rejects.toThrow(RangeError);
    await expect(store.breakdown({ ...scope(), from: Number.NaN }, 'pages', 10)).rejects.toThrow(RangeError);
    await expect(store.livePages({ ...A, since: T0, filters: [] }, -1)).rejects.toThrow(RangeError);
    expect(sent()).toHaveLength(0);
  });
});

describe('TimestreamReportStore filters', () => {
  const hostile = [
    "x' OR '1'='1",
    "'; DROP TABLE events; --",
    '\\',
    "\\'",
    "it's \\\\ a \"test\"",
    '%_*[]',
    'ünïcødé 🎉',
  ];

  it('escapes hostile values into single literals in every query', async () => {
    answerBy([]);
    const store = newStore();
    for (const value of hostile) {
      const filters: FilterClause[] = [
        { dim: 'page', op: 'eq', value },
        { dim: 'referrer', op: 'neq', value },
        { dim: 'utm_campaign', op: 'contains', value },
      ];
      await store.traffic({ sites: [A], boundaries: [T0, T0 + H, T0 + 2 * H], filters });
      await store.breakdown(scope(filters), 'pages', 10);
      await store.breakdown(scope(filters), 'events', 10);
      await store.eventTotals(scope(filters));
      await store.livePages({ ...A, since: T0, filters }, 10);
      await store.engagement(scope(filters), [5], [25]);
      const literal = `'${value.replaceAll("'", "''")}'`;
      for (const sql of sqls()) {
        expect(sql).toContain(`coalesce("path", '') = ${literal}`);
        expect(sql).toContain(`coalesce("referrer_host", '') <> ${literal}`);
        expect(sql).toContain(`strpos(coalesce("utm_campaign", ''), ${literal}) > 0`);
        const bare = outsideLiterals(sql);
        for (const fragment of ['DROP', 'TABLE', '--', "'1", '\\', '[]', 'ü', '🎉']) expect(bare).not.toContain(fragment);
      }
      timestream.resetHistory();
    }
  });

  it('refuses no filter the domain accepts: a NUL in a value is written as chr(0)', async () => {
    answerBy([]);
    expect(await newStore().breakdown(scope([{ dim: 'page', op: 'eq', value: 'a\u0000b' }]), 'pages', 10)).toEqual([]);
    expect(sqls()[0]).toContain(`coalesce("path", '') = concat('a', chr(0), 'b')`);
  });
});

describe('TimestreamReportStore results', () => {
  it('reads every page of a result, following NextToken', async () => {
    const types = { name: 'VARCHAR', value: 'BIGINT', visitors: 'BIGINT' };
    timestream
      .on(QueryCommand)
      .resolvesOnce(answer(types, [{ name: '/a', value: 3, visitors: 2 }], 'page-2'))
      .resolvesOnce(answer(types, [], 'page-3')) // Timestream may answer an empty page while it works
      .resolvesOnce(answer(types, [{ name: '/b', value: 1, visitors: 1 }]));
    expect(await newStore().breakdown(scope(), 'pages', 10)).toEqual([
      { name: '/a', value: 3, visitors: 2 },
      { name: '/b', value: 1, visitors: 1 },
    ]);
    const inputs = sent();
    expect(inputs.map((i) => i.NextToken)).toEqual([undefined, 'page-2', 'page-3']);
    expect(new Set(inputs.map((i) => i.QueryString)).size).toBe(1);
  });

  it('parses typed scalars, nulls, arrays and rows into plain values', () => {
    const columns: ColumnInfo[] = [
      { Name: 'b', Type: { ScalarType: 'BIGINT' } },
      { Name: 'huge', Type: { ScalarType: 'BIGINT' } },
      { Name: 'i', Type: { ScalarType: 'INTEGER' } },
      { Name: 'd', Type: { ScalarType: 'DOUBLE' } },
      { Name: 't', Type: { ScalarType: 'BOOLEAN' } },
      { Name: 'f', Type: { ScalarType: 'BOOLEAN' } },
      { Name: 's', Type: { ScalarType: 'VARCHAR' } },
      { Name: 'n', Type: { ScalarType: 'VARCHAR' } },
      { Name: 'ts', Type: { ScalarType: 'TIMESTAMP' } },
      { Name: 'arr', Type: { ArrayColumnInfo: { Type: { ScalarType: 'DOUBLE' } } } },
      { Name: 'row', Type: { RowColumnInfo: [{ Name: 'x', Type: { ScalarType: 'BIGINT' } }, { Name: 'y', Type: { ScalarType: 'VARCHAR' } }] } },
    ];
    const row: Row = {
      Data: [
        { ScalarValue: '1714521600000' },
        { ScalarValue: '9007199254740993' },
        { ScalarValue: '-3' },
        { ScalarValue: '12.5' },
        { ScalarValue: 'true' },
        { ScalarValue: 'false' },
        { ScalarValue: "it's" },
        { NullValue: true },
        { ScalarValue: '2024-05-01 00:00:00.000000000' },
        { ArrayValue: [{ ScalarValue: '1.5' }, { NullValue: true }] },
        { RowValue: { Data: [{ ScalarValue: '7' }, { NullValue: true }] } },
      ],
    };
    expect(parseRow(columns, row)).toEqual({
      b: 1714521600000,
      huge: 9007199254740993n,
      i: -3,
      d: 12.5,
      t: true,
      f: false,
      s: "it's",
      n: null,
      ts: '2024-05-01 00:00:00.000000000',
      arr: [1.5, null],
      row: { x: 7, y: null },
    });
  });
});

describe('TimestreamReportStore missing columns', () => {
  const describeAnswer = (columns: string[]) =>
    answer({ Column: 'VARCHAR', Type: 'VARCHAR', 'Timestream attribute type': 'VARCHAR' }, columns.map((Column) => ({ Column, Type: 'varchar', 'Timestream attribute type': 'MULTI' })));
  const refused = () => new ValidationException({ ...meta, message: "Column 'utm_term' does not exist", Message: "Column 'utm_term' does not exist" });
  const present = ['site', 'registration', 'id', 'kind', 'path', 'visitor', 'unique', 'bot', 'time', 'measure_name'];

  it('describes the table after a refusal and reads the columns it lacks as typed NULLs', async () => {
    const missing = ['utm_term', 'utm_content'];
    // Like Timestream: naming a column the table does not have is a ValidationException.
    timestream.on(QueryCommand).callsFake((input: { QueryString: string }) => {
      if (input.QueryString.startsWith('DESCRIBE')) return describeAnswer(present);
      if (missing.some((c) => input.QueryString.includes(`"${c}" AS "${c}"`))) throw refused();
      return answer({ name: 'VARCHAR', value: 'BIGINT', visitors: 'BIGINT' }, [{ name: 'x', value: 1, visitors: 1 }]);
    });
    const store = newStore();
    expect(await store.breakdown(scope(), 'utm_terms', 10)).toEqual([{ name: 'x', value: 1, visitors: 1 }]);
    const all = sqls();
    expect(all).toHaveLength(3);
    expect(all[0]).toContain('"utm_term" AS "utm_term"');
    expect(all[1]).toBe('DESCRIBE "tt-db"."events"');
    expect(all[2]).toContain('CAST(NULL AS VARCHAR) AS "utm_term"');
    expect(all[2]).toContain('"visitor" AS "visitor"');
    // Nothing is remembered: a column may appear any time, so the next query assumes it again.
    missing.length = 0;
    await store.breakdown(scope([{ dim: 'utm_content', op: 'eq', value: 'c' }]), 'pages', 10);
    expect(sqls()).toHaveLength(4);
    expect(sqls()[3]).toContain('"utm_content" AS "utm_content"');
  });

  it('reads a table whose records carry no registration yet (written before registrations) as no registration\'s rows', async () => {
    timestream.on(QueryCommand).callsFake((input: { QueryString: string }) => {
      if (input.QueryString.startsWith('DESCRIBE')) return describeAnswer(present.filter((c) => c !== 'registration'));
      if (input.QueryString.includes('"registration" IN')) throw refused();
      return answer({}, []);
    });
    expect(await newStore().breakdown(scope(), 'pages', 10)).toEqual([]);
    expect(sqls().at(-1)).toContain(`"site" IN ('a.example') AND CAST(NULL AS VARCHAR) IN ('reg-a')`);
  });

  it('shares one DESCRIBE between queries refused together', async () => {
    timestream.on(QueryCommand).callsFake(async (input: { QueryString: string }) => {
      if (input.QueryString.startsWith('DESCRIBE')) return describeAnswer(present.filter((c) => c !== 'bot'));
      if (input.QueryString.includes('"bot" AS')) throw refused();
      return answer({}, []);
    });
    await newStore().traffic({ sites: [A], boundaries: [T0, T0 + H, T0 + 2 * H], filters: [] });
    expect(sqls().filter((s) => s.startsWith('DESCRIBE'))).toHaveLength(1);
    expect(sqls().filter((s) => s.includes('CAST(NULL AS BOOLEAN) AS "bot"'))).toHaveLength(3);
  });

  it('passes the error on when every column exists', async () => {
    timestream.on(QueryCommand).callsFake((input: { QueryString: string }) => {
      if (input.QueryString.startsWith('DESCRIBE')) return describeAnswer([...present, 'country', 'browser', 'os', 'device', 'language', 'original_id', 'event', 'page_id', 'session_id', 'query', 'referrer', 'referrer_host', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'source', 'metadata', 'source_id', 'viewport_width', 'viewport_height', 'screen_width', 'screen_height', 'scrolled', 'duration', 'https', 'imported']);
      throw refused();
    });
    await expect(newStore().breakdown(scope(), 'pages', 10)).rejects.toThrow(/does not exist/);
    expect(sqls()).toHaveLength(2);
  });
});
