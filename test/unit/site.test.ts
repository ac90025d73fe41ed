import { describe, expect, it } from 'vitest';
import { compareSites, newSiteRecord, ownerView, parseSiteSettings, publicView, settingsToPatch } from '#domain/site.ts';

const at = (iso: string) => new Date(iso);

describe('parseSiteSettings', () => {
  it.each([
    [{}, { ok: true, settings: {} }],
    [{ display_name: '  Blog  ' }, { ok: true, settings: { display_name: 'Blog' } }],
    [{ display_name: ' '.repeat(150) + 'x' }, { ok: true, settings: { display_name: 'x' } }],
    [{ display_name: 'x'.repeat(101) }, { ok: false, error: 'invalid display name' }],
    [{ display_name: null }, { ok: false, error: 'invalid display name' }],
    [{ is_public: 1 }, { ok: false, error: 'invalid sharing setting' }],
    [{ reports_mode: 'inherit' }, { ok: true, settings: { reports_mode: 'inherit' } }],
    [{ reports_mode: 'weekly' }, { ok: false, error: 'invalid reports mode' }],
    [{ pinned: 'true' }, { ok: false, error: 'invalid pin setting' }],
    [{ pinned: false, hostname: 'other.example' }, { ok: true, settings: { pinned: false } }],
    [{ display_name: 5, pinned: 'x' }, { ok: false, error: 'invalid display name' }],
    [[], { ok: false, error: 'invalid settings' }],
    [undefined, { ok: false, error: 'invalid settings' }],
    ['x', { ok: false, error: 'invalid settings' }],
  ])('%j → %j', (body, expected) => {
    expect(parseSiteSettings(body)).toEqual(expected);
  });

  it('turns pinned into pinned_at', () => {
    const now = at('2026-01-02T03:04:05.000Z');
    expect(settingsToPatch({ pinned: true, display_name: 'a' }, now)).toEqual({ display_name: 'a', pinned_at: '2026-01-02T03:04:05.000Z' });
    expect(settingsToPatch({ pinned: false }, now)).toEqual({ pinned_at: null });
    expect(settingsToPatch({ is_public: true }, now)).toEqual({ is_public: true });
  });
});

describe('views', () => {
  it('never show owner_uid; anonymous readers get no owner extras', () => {
    const site = newSiteRecord('a.example', 'web', 'owner-1', at('2026-01-01T00:00:00Z'));
    expect(ownerView(site)).not.toHaveProperty('owner_uid');
    expect(Object.keys(publicView(site)).sort()).toEqual(['created_at', 'display_name', 'hostname', 'is_public', 'kind']);
  });
});

describe('compareSites', () => {
  it('puts pinned first (most recent pin first), then creation order', () => {
    const mk = (h: string, created: string, pinned: string | null) => ({ ...newSiteRecord(h, 'web', 'u', at(created)), pinned_at: pinned });
    const sites = [
      mk('a', '2026-01-01T00:00:00Z', null),
      mk('b', '2026-01-02T00:00:00Z', '2026-02-01T00:00:00Z'),
      mk('c', '2026-01-03T00:00:00Z', null),
      mk('d', '2026-01-04T00:00:00Z', '2026-03-01T00:00:00Z'),
    ];
    expect(sites.sort(compareSites).map((s) => s.hostname)).toEqual(['d', 'b', 'a', 'c']);
  });
});
