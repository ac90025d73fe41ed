import { describe, expect, it } from 'vitest';
import { isJobIdForm, jobView, newImportJob, transition, uuidv7, type ImportStatus, type ImportTransition } from '#domain/imports/job.ts';
import { SIMPLE_ANALYTICS } from '#domain/imports/source.ts';

const STATUSES: ImportStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];
const TRANSITIONS: ImportTransition[] = ['start', 'succeed', 'fail', 'cancel', 'retry'];

describe('import job state machine', () => {
  it('allows exactly these transitions: each status change writes with the from and to of transition()', () => {
    const next = (s: ImportStatus, t: ImportTransition) => ((transition(t).from as readonly ImportStatus[]).includes(s) ? transition(t).to : null);
    const table = Object.fromEntries(STATUSES.map((s) => [s, Object.fromEntries(TRANSITIONS.map((t) => [t, next(s, t)]))]));
    expect(table).toEqual({
      queued: { start: 'running', succeed: null, fail: 'failed', cancel: 'cancelled', retry: null },
      running: { start: null, succeed: 'succeeded', fail: 'failed', cancel: 'cancelled', retry: null },
      succeeded: { start: null, succeed: null, fail: null, cancel: null, retry: null },
      failed: { start: null, succeed: null, fail: null, cancel: null, retry: 'queued' },
      cancelled: { start: null, succeed: null, fail: null, cancel: null, retry: 'queued' },
    });
  });
});

describe('newImportJob and jobView', () => {
  const now = new Date('2026-03-15T12:00:00.000Z');
  const job = newImportJob('0195f3a0-0000-7000-8000-000000000001', 'shop.example', 'owner-1', {
    source: SIMPLE_ANALYTICS,
    range_start: '2025-01-15',
    range_end: '2025-03-10',
    credentials: { user_id: 'sa_user', api_key: 'sa_api_key_secret' },
    source_hostname: 'old-shop.example',
  }, now);

  it('starts queued with six chunks and no credentials in the record', () => {
    expect(job).toMatchObject({ status: 'queued', chunks_total: 6, chunks_done: 0, attempt: 1, done_chunks: [], config: { user_id: 'sa_user', source_hostname: 'old-shop.example' } });
    expect(JSON.stringify(job)).not.toContain('sa_api_key_secret');
  });

  it('shows exactly the fields of spec part 2', () => {
    expect(Object.keys(jobView(job, SIMPLE_ANALYTICS)).sort()).toEqual(
      ['chunks_done', 'chunks_total', 'config', 'created_at', 'error', 'finished_at', 'id', 'range_end', 'range_start', 'rows_imported', 'rows_skipped', 'site', 'source', 'source_label', 'status'].sort(),
    );
    expect(jobView(job, SIMPLE_ANALYTICS).source_label).toBe('SimpleAnalytics');
  });
});

describe('uuidv7', () => {
  it('is a version-7 UUID that sorts by time', () => {
    const a = uuidv7(new Date('2026-01-01T00:00:00.000Z'));
    const b = uuidv7(new Date('2026-01-01T00:00:00.001Z'));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    expect(uuidv7(new Date(0), Buffer.alloc(10, 0xff))).toBe('00000000-0000-7fff-bfff-ffffffffffff');
  });
});

describe('isJobIdForm', () => {
  it('accepts lowercase UUIDs, as uuidv7 makes them, and nothing else', () => {
    expect(isJobIdForm(uuidv7(new Date()))).toBe(true);
    expect(isJobIdForm('00000000-0000-0000-0000-000000000000')).toBe(true);
    for (const id of ['a'.repeat(1018), 'x', '', uuidv7(new Date()).toUpperCase(), `${uuidv7(new Date())}0`]) expect(isJobIdForm(id), id).toBe(false);
  });
});
