/**
 * The e-mail digest as mailed (domain/digests/digest-mail.ts): a known
 * dataset rendered to HTML and plain text, compared with the files beside
 * this test (review a change to them as a change to the mail); data is
 * escaped, the chart is drawn with table cells, changes read as people
 * expect; and the signed unsubscribe links (domain/digests/unsubscribe.ts).
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { digestMail, formatChange, formatDuration, periodLabel, type DigestInput, type SiteDigest } from '#domain/digests/digest-mail.ts';
import { readUnsubscribeToken, recipientHash, recipientOf, unsubscribeToken } from '#domain/digests/unsubscribe.ts';

const SCRIPT = '<script>alert(1)</script>';

const site: SiteDigest = {
  hostname: 'shop.example',
  totals: { pageviews: 12_480, visitors: 3_210, duration_s: 83 },
  previous: { pageviews: 10_400, visitors: 3_300, duration_s: 90 },
  chart: ['Mon 16', 'Tue 17', 'Wed 18', 'Thu 19', 'Fri 20', 'Sat 21', 'Sun 22'].map((label, i) => ({ label, pageviews: [1200, 1800, 2400, 2000, 1900, 1500, 1680][i] as number })),
  pages: [
    { name: '/', value: 5_100 },
    { name: SCRIPT, value: 12 },
  ],
  sources: [{ name: 'google.com', value: 2_000 }, { name: '', value: 900 }],
  countries: [{ name: 'DE', value: 1_400 }],
  events: [{ name: 'signup', value: 88 }],
  goals: [{ name: 'Checkout & pay', conversions: 40, conversion_rate: 0.0125 }],
  api: null,
  link: 'https://dash.example/sites/shop.example?period=custom&from=2026-11-16&to=2026-11-22&tz=Europe%2FAmsterdam',
};

const input: DigestInput = {
  kind: 'site',
  frequency: 'weekly',
  tz: 'Europe/Amsterdam',
  period: { from: Date.parse('2026-11-15T23:00:00Z'), to: Date.parse('2026-11-22T23:00:00Z') },
  sites: [site],
  to: 'owner@example.com',
  unsubscribeUrl: 'https://dash.example/api/reports/unsubscribe?token=abc.def',
};

describe('the digest mail', () => {
  it('renders a known dataset as the files beside this test hold it', async () => {
    const mail = digestMail(input);
    expect(mail.subject).toBe('[tinytrack] Weekly report: shop.example, 16 Nov – 22 Nov 2026');
    expect(mail.to).toEqual(['owner@example.com']);
    await expect(mail.text).toMatchFileSnapshot('./snapshots/digest-weekly.txt');
    await expect(mail.html).toMatchFileSnapshot('./snapshots/digest-weekly.html');
  });

  it('shows a page path that is markup as text in both bodies, never as markup', () => {
    const mail = digestMail(input);
    expect(mail.text).toContain(`  ${SCRIPT}: 12`);
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).not.toContain(SCRIPT);
    expect(mail.html).toContain('Checkout &amp; pay (1.25 %)');
  });

  it('draws the chart with table cells scaled to the busiest bucket, and as block characters in text', () => {
    const mail = digestMail(input);
    expect(mail.html).toContain('height="60" bgcolor="#4f46e5"');
    expect(mail.html).toContain('height="30" bgcolor="#4f46e5"');
    expect(mail.html).not.toContain('<img');
    expect(mail.text).toContain('Pageviews: ▄▆█▇▇▅▆ (Mon 16 to Sun 22)');
  });

  it('adds the API figures of an API site, and says so when a digest has no sites', () => {
    const api = digestMail({ ...input, sites: [{ ...site, api: { requests: 1000, error_rate: 0.02, p95_ms: 240, previous: { requests: 0, error_rate: null, p95_ms: null } } }] });
    expect(api.text).toContain('API requests: 1,000 (new)');
    expect(api.text).toContain('API error rate: 2.00 % (—)');
    expect(api.text).toContain('API p95 latency: 240 ms (—)');
    const none = digestMail({ ...input, kind: 'workspace', sites: [] });
    expect(none.subject).toBe('[tinytrack] Weekly digest: 0 sites, 16 Nov – 22 Nov 2026');
    expect(none.text).toContain('No sites are in this digest.');
  });

  it('words changes, durations and periods', () => {
    expect([formatChange(120, 100), formatChange(95, 100), formatChange(5, 0), formatChange(0, 0), formatChange(100, 100), formatChange(null, 3)]).toEqual(['+20 %', '−5 %', 'new', '—', '±0 %', '—']);
    expect([formatDuration(null), formatDuration(42.4), formatDuration(65)]).toEqual(['—', '42s', '1m 05s']);
    expect(periodLabel('daily', 'America/New_York', { from: Date.parse('2027-11-07T04:00:00Z'), to: Date.parse('2027-11-08T05:00:00Z') })).toBe('Sun, 7 Nov 2027');
    expect(periodLabel('monthly', 'Europe/Amsterdam', { from: Date.parse('2027-09-30T22:00:00Z'), to: Date.parse('2027-10-31T23:00:00Z') })).toBe('October 2027');
  });
});

describe('unsubscribe links', () => {
  const secret = randomBytes(32);
  const ref = { kind: 'site', site: 'shop.example', id: '5a0c6f7e-6a3e-4b5e-9b43-6b1c1f3b2a10' } as const;

  it('name their digest and recipient (by hash, never the address), and only under the secret that signed them', () => {
    const token = unsubscribeToken(secret, ref, 'Owner@Example.com ');
    expect(token).not.toMatch(/owner|example\.com/i);
    expect(Buffer.from(token.split('.')[0] as string, 'base64url').toString()).not.toContain('@');
    const read = readUnsubscribeToken(secret, token);
    expect(read).toEqual({ ref, recipient: recipientHash('owner@example.com') });
    expect(recipientOf(['a@example.com', 'owner@example.com'], read?.recipient as string)).toBe('owner@example.com');
    expect(readUnsubscribeToken(randomBytes(32), token)).toBeNull();
    const workspace = unsubscribeToken(secret, { kind: 'workspace', owner_uid: 'u1' }, 'a@example.com');
    expect(readUnsubscribeToken(secret, workspace)?.ref).toEqual({ kind: 'workspace', owner_uid: 'u1' });
  });

  it('refuse a token changed anywhere: another digest, a cut signature, junk', () => {
    const token = unsubscribeToken(secret, ref, 'owner@example.com');
    const [body, signature] = token.split('.') as [string, string];
    const other = Buffer.from(JSON.stringify(['site', 'other.example', ref.id, recipientHash('owner@example.com')])).toString('base64url');
    for (const bad of [`${other}.${signature}`, `${body}.${signature.slice(0, -2)}`, `${body}.${signature}x`, body, `${body}.${signature}.x`, '', 'a.b']) {
      expect(readUnsubscribeToken(secret, bad)).toBeNull();
    }
  });
});
