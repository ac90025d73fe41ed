import { describe, expect, it } from 'vitest';
import { buildEventRow } from '#domain/ingest/event-row.ts';
import { parseJsonPayload } from '#domain/ingest/payload.ts';
import { CollectorCaches } from '#domain/ingest/caches.ts';
import { isDrop } from '#domain/ingest/drop.ts';

const payload = () => {
  const parsed = parseJsonPayload({ hostname: 'row.example', path: '/', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36', id: 'p1' });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.payload;
};
const context = (now: string, saltDay: string) => ({
  site: 'row.example',
  registration: 'reg-1',
  append: false,
  now: Date.parse(now),
  ip: '203.0.113.9',
  headerUa: '',
  salt: { day: saltDay, value: 'secret' },
  newId: () => 'server-id',
});
const visitorOf = (built: ReturnType<typeof buildEventRow>) => (isDrop(built) ? 'dropped' : built.visitor);

describe('visitor hash and the salt of its day', () => {
  it('hashes with a salt of the row\'s own UTC day', () => {
    expect(visitorOf(buildEventRow(payload(), context('2032-03-05T00:00:00.001Z', '2032-03-05'), new CollectorCaches()))).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses a salt of another day: the row gets no visitor hash rather than one from yesterday\'s salt', () => {
    expect(visitorOf(buildEventRow(payload(), context('2032-03-05T00:00:00.001Z', '2032-03-04'), new CollectorCaches()))).toBeNull();
  });
});
