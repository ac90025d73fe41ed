import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EXPORT_FIELDS, createRecordMapper, importJobOfRowId, importedRowId, type ImportRowContext } from '#domain/imports/export-row.ts';

const ctx = (over: Partial<ImportRowContext> = {}): ImportRowContext => ({
  site: 'shop.example',
  registration: 'reg-shop',
  jobId: '0190f3a0-0000-7000-8000-000000000001',
  type: 'pageviews',
  sourceHostname: 'old-shop.example',
  ...over,
});

function map(record: Record<string, string>, c = ctx()) {
  const columns = Object.keys(record);
  return createRecordMapper(columns, c)(columns.map((k) => record[k] as string));
}

describe('createRecordMapper: page views', () => {
  it('maps every field of an exported page view', () => {
    const r = map({
      added_unix: '1735689600',
      uuid: 'c6f3a2de-1111-4222-8333-444455556666',
      hostname: 'old-shop.example',
      path: '/pricing',
      query: 'plan=pro',
      is_unique: 'true',
      is_robot: 'false',
      document_referrer: 'https://www.Google.com/search?q=x',
      utm_source: '',
      utm_medium: 'cpc',
      utm_campaign: 'spring',
      utm_term: 'shoes',
      utm_content: 'ad1',
      duration_seconds: '42.6',
      scrolled_percentage: '130',
      viewport_width: '1280',
      viewport_height: '720',
      screen_width: '1920',
      screen_height: '1080',
      device_type: 'Mobile',
      country_code: 'nl',
      browser_name: 'Mobile Firefox',
      os_name: 'Mac OS X',
      lang_language: 'Dutch',
    });
    expect(r).toEqual({
      ok: true,
      row: {
        site: 'shop.example',
        registration: 'reg-shop',
        ts: 1735689600000,
        kind: 'pageview',
        id: 'import:0190f3a0-0000-7000-8000-000000000001:c6f3a2de-1111-4222-8333-444455556666',
        original_id: null,
        event: null,
        visitor: null,
        unique: true,
        page_id: null,
        session_id: null,
        path: '/pricing',
        query: 'plan=pro',
        referrer: 'https://www.Google.com/search?q=x',
        referrer_host: 'google.com',
        utm_source: null,
        utm_medium: 'cpc',
        utm_campaign: 'spring',
        utm_term: 'shoes',
        utm_content: 'ad1',
        source: 'Google',
        country: 'NL',
        browser: 'Firefox',
        os: 'macOS',
        device: 'mobile',
        language: 'Dutch',
        viewport_width: 1280,
        viewport_height: 720,
        screen_width: 1920,
        screen_height: 1080,
        duration: 43,
        scrolled: 100,
        bot: false,
        metadata: null,
        https: null,
        imported: true,
        source_id: 'c6f3a2de-1111-4222-8333-444455556666',
      },
    });
  });

  it('keeps robots but flags them, and reads the unique flag', () => {
    const r = map({ added_unix: '1735689600', uuid: 'u1', path: '/', is_robot: 'true', is_unique: 'false' });
    expect(r.ok && [r.row.bot, r.row.unique]).toEqual([true, false]);
  });

  it('treats the old and the new hostname as internal referrers, and campaign tags win', () => {
    const internal = map({ added_unix: '1', uuid: 'a', path: '/', document_referrer: 'https://old-shop.example/blog' });
    expect(internal.ok && [internal.row.referrer_host, internal.row.source]).toEqual([null, null]);
    const tagged = map({ added_unix: '1', uuid: 'b', path: '/', document_referrer: 'https://google.com/', utm_source: 'newsletter' });
    expect(tagged.ok && tagged.row.source).toBe('newsletter');
  });

  it('takes 13-digit added_unix as milliseconds and falls back to added_iso', () => {
    const ms = map({ added_unix: '1735689600123', uuid: 'a', path: '/' });
    expect(ms.ok && ms.row.ts).toBe(1735689600123);
    const iso = map({ added_iso: '2025-01-01T00:00:01.500Z', uuid: 'a', path: '/' });
    expect(iso.ok && iso.row.ts).toBe(Date.parse('2025-01-01T00:00:01.500Z'));
    expect(map({ added_unix: 'soon', uuid: 'a', path: '/' })).toEqual({ ok: false, reason: 'no_timestamp' });
  });

  it('derives a stable source id when the export has no uuid', () => {
    const a = map({ added_unix: '1735689600', path: '/x' });
    const b = map({ added_unix: '1735689600', path: '/x' });
    const c = map({ added_unix: '1735689601', path: '/x' });
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (a.ok && b.ok && c.ok) {
      expect(a.row.source_id).toMatch(/^sha256:[0-9a-f]{32}$/);
      expect(a.row.source_id).toBe(b.row.source_id);
      expect(c.row.source_id).not.toBe(a.row.source_id);
    }
  });

  it('defaults a missing path to / and drops unknown device types and malformed countries', () => {
    const r = map({ added_unix: '1', uuid: 'a', path: '', device_type: 'tv', country_code: 'Netherlands' });
    expect(r.ok && [r.row.path, r.row.device, r.row.country]).toEqual(['/', null, null]);
  });
});

describe('createRecordMapper: events', () => {
  const events = ctx({ type: 'events' });

  it('normalizes the datapoint into the event name and has no unique flag or engagement', () => {
    const r = map({ added_unix: '1735689600', uuid: 'e1', path: '/', datapoint: '  click: Buy now!! ', is_unique: 'true', duration_seconds: '5' }, events);
    expect(r.ok && [r.row.kind, r.row.event, r.row.unique, r.row.duration]).toEqual(['event', 'click_Buy_now', null, null]);
  });

  it('skips events whose name is empty after normalization', () => {
    expect(map({ added_unix: '1', uuid: 'e', path: '/', datapoint: '!!!' }, events)).toEqual({ ok: false, reason: 'empty_event_name' });
  });

  it('collects metadata.* columns into metadata JSON, typed by their suffix, cut to 4,096 characters', () => {
    const r = map({ added_unix: '1', uuid: 'e', path: '/', datapoint: 'signup', 'metadata.plan_text': 'pro, yearly', 'metadata.seats_int': '5', 'metadata.trial_bool': 'true', 'metadata.empty_text': '' }, events);
    expect(r.ok && JSON.parse(r.row.metadata as string)).toEqual({ plan: 'pro, yearly', seats: 5, trial: true });
    const long = map({ added_unix: '1', uuid: 'e', path: '/', datapoint: 'x', 'metadata.blob_text': 'y'.repeat(5000) }, events);
    expect(long.ok && long.row.metadata?.length).toBe(4096);
  });
});

describe('imported row ids', () => {
  it('name the job that stored the row', () => {
    const id = importedRowId('job-1', 'c6f3a2de-1111');
    expect(importJobOfRowId(id)).toBe('job-1');
    expect(importJobOfRowId('7f1b-live-id')).toBeNull();
  });

  it('asks the export for the columns it maps', () => {
    expect(EXPORT_FIELDS.pageviews).toContain('is_unique');
    expect(EXPORT_FIELDS.pageviews).not.toContain('datapoint');
    expect(EXPORT_FIELDS.events).toContain('datapoint');
    expect(EXPORT_FIELDS.events).not.toContain('duration_seconds');
  });

  it('never throws on any CSV record', () => {
    const columns = [...EXPORT_FIELDS.events, 'metadata.k_int'];
    const mapper = createRecordMapper(columns, ctx({ type: 'events' }));
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: columns.length + 2 }), (values) => {
        const r = mapper(values);
        if (r.ok) expect(r.row.imported).toBe(true);
      }),
    );
  });
});
