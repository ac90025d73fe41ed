import { describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { iconIsStale, ICON_REFRESH_MS, refreshIcon, sniffIconType } from '#domain/site-icon.ts';
import { S3IconStore } from '#adapters/s3/s3-icon-store.ts';
import type { IconStore, SiteIcon } from '#ports/icon-store.ts';
import type { PageChecker } from '#ports/page-checker.ts';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);

describe('sniffIconType', () => {
  it.each([
    ['png', PNG, 'image/png'],
    ['ico', Buffer.from([0, 0, 1, 0, 1, 0]), 'image/x-icon'],
    ['gif', Buffer.from('GIF89a'), 'image/gif'],
    ['jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    ['webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 '), 'image/webp'],
    ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), null],
    ['html', Buffer.from('<!doctype html>'), null],
    ['riff that is not webp', Buffer.from('RIFF\0\0\0\0WAVEfmt '), null],
    ['empty', Buffer.alloc(0), null],
  ])('%s', (_, bytes, type) => {
    expect(sniffIconType(bytes)).toBe(type);
  });
});

describe('iconIsStale', () => {
  const now = new Date('2026-11-27T00:00:00Z');
  it('is due after a week, or when there is none', () => {
    expect(iconIsStale(null, now)).toBe(true);
    expect(iconIsStale({ image: null, checkedAt: new Date(now.getTime() - ICON_REFRESH_MS + 1000).toISOString() }, now)).toBe(false);
    expect(iconIsStale({ image: null, checkedAt: new Date(now.getTime() - ICON_REFRESH_MS).toISOString() }, now)).toBe(true);
  });
});

describe('refreshIcon', () => {
  const page = {
    reachable: true as const,
    scriptFound: true,
    proxiedScripts: [],
    proxiedMismatch: null,
    tokenFound: false,
    foreignScript: null,
    tokenMisplaced: false,
    iconUrls: ['https://a/bad.svg', 'https://a/favicon.ico'],
  };
  const fetched: Record<string, Buffer> = { 'https://a/bad.svg': Buffer.from('<svg/>'), 'https://a/favicon.ico': PNG };
  const checker = { fetchImage: async (url: string) => fetched[url] ?? null } as unknown as PageChecker;
  const clock = { now: () => new Date('2026-11-27T00:00:00Z') };

  it('takes the first candidate that is an image, and stores it', async () => {
    const stored = new Map<string, SiteIcon>();
    const icons: IconStore = { get: async (h) => stored.get(h) ?? null, put: async (h, i) => void stored.set(h, i), delete: async (h) => void stored.delete(h) };
    const icon = await refreshIcon({ pageChecker: checker, icons, clock, log: { warn: () => {}, error: () => {} } }, 'a.example', page);
    expect(icon).toEqual({ image: { body: PNG, contentType: 'image/png' }, checkedAt: '2026-11-27T00:00:00.000Z' });
    expect(stored.get('a.example')).toEqual(icon);
  });

  it('a store that fails is logged, and the icon still returned', async () => {
    const warnings: unknown[] = [];
    const icons = { put: async () => Promise.reject(new Error('disk full')) } as unknown as IconStore;
    const icon = await refreshIcon({ pageChecker: checker, icons, clock, log: { warn: (...a) => void warnings.push(a), error: () => {} } }, 'a.example', page);
    expect(icon.image?.contentType).toBe('image/png');
    expect(warnings).toEqual([['storing the site icon failed', { hostname: 'a.example', message: 'disk full' }]]);
  });

  it('an unreachable page stores that there is none', async () => {
    const stored = new Map<string, SiteIcon>();
    const icons = { put: async (h: string, i: SiteIcon) => void stored.set(h, i) } as unknown as IconStore;
    await refreshIcon({ pageChecker: checker, icons, clock, log: { warn: () => {}, error: () => {} } }, 'b.example', { reachable: false, offSite: false, error: 'HTTP 500' });
    expect(stored.get('b.example')).toEqual({ image: null, checkedAt: '2026-11-27T00:00:00.000Z' });
  });
});

// No S3 runs here: the S3 client is mocked; IconFiles (site-icons.test.ts) is the same port on real files.
describe('S3IconStore', () => {
  const s3 = mockClient(S3Client);
  const store = new S3IconStore(new S3Client({ region: 'eu-west-1' }), 'icons-bucket');
  // The SDK's stream body, as far as the store reads it.
  const body = (bytes: Buffer) => ({ transformToByteArray: async () => new Uint8Array(bytes) }) as never;

  it('puts the image with its type and check time, and reads it back', async () => {
    s3.reset();
    s3.on(PutObjectCommand).resolves({});
    await store.put('a.example', { image: { body: PNG, contentType: 'image/png' }, checkedAt: '2026-11-27T00:00:00.000Z' });
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toEqual({ Bucket: 'icons-bucket', Key: 'icons/a.example', Body: PNG, ContentType: 'image/png', Metadata: { 'checked-at': '2026-11-27T00:00:00.000Z' } });
    s3.on(GetObjectCommand).resolves({ Body: body(PNG), ContentType: 'image/png', Metadata: { 'checked-at': '2026-11-27T00:00:00.000Z' } });
    expect(await store.get('a.example')).toEqual({ image: { body: PNG, contentType: 'image/png' }, checkedAt: '2026-11-27T00:00:00.000Z' });
  });

  it('keeps "none found" as an empty marker, and a missing object is null', async () => {
    s3.reset();
    s3.on(PutObjectCommand).resolves({});
    await store.put('b.example', { image: null, checkedAt: '2026-11-27T00:00:00.000Z' });
    const input = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    s3.on(GetObjectCommand).resolves({ Body: body(Buffer.alloc(0)), ContentType: input.ContentType, Metadata: input.Metadata });
    expect(await store.get('b.example')).toEqual({ image: null, checkedAt: '2026-11-27T00:00:00.000Z' });
    s3.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'no', $metadata: {} }));
    expect(await store.get('c.example')).toBeNull();
  });

  it('deletes the object', async () => {
    s3.reset();
    s3.on(DeleteObjectCommand).resolves({});
    await store.delete('a.example');
    expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input).toEqual({ Bucket: 'icons-bucket', Key: 'icons/a.example' });
  });
});
