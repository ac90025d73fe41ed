/**
 * The scheduled sends of e-mail digests with a controlled clock (issue 38):
 * the sender the scheduler calls every quarter hour, handed the times chosen
 * here, over the real registry (dynalite) and DuckDB, mail in the outbox.
 * Through the DST changes of Europe/Amsterdam (March, October) and
 * America/New_York (November), each frequency mails once per period at 07:00
 * local; two runs at once mail once; a failed send is recorded, tried again
 * by the next run and mailed once. Its own service: the runs here send every
 * digest due in the registry.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextSendAt, type DigestFrequency } from '#domain/digests/schedule.ts';
import type { EmailReportRecord } from '#ports/email-reports.ts';
import type { Mail, Mailer } from '#ports/mailer.ts';
import { log } from '#platform/log.ts';
import { digestMails } from '#reports/digest-reports.ts';
import { createDigestSender } from '#workers/digest-sends.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let site: string;
const QUARTER = 15 * 60_000;

beforeAll(async () => {
  svc = await startTestService();
  site = await svc.site(await svc.token('digest-sender'), { prefix: 'digest-sends', verify: false });
});
afterAll(() => svc.stop());

/** A report of the site as the routes store it, scheduled from `fromMs`, to one recipient of its own. */
async function report(frequency: DigestFrequency, tz: string, recipient: string, fromMs: number): Promise<EmailReportRecord> {
  const r: EmailReportRecord = {
    id: randomUUID(),
    site,
    owner_uid: 'digest-sender',
    frequency,
    tz,
    recipients: [recipient],
    inherits: [],
    enabled: true,
    last_sent_at: null,
    next_send_at: new Date(nextSendAt(frequency, tz, fromMs)).toISOString(),
    last_error: null,
    created_at: new Date(fromMs).toISOString(),
  };
  expect(await svc.node.services.registry.digests.emailReports.create(r, 10)).toBe(true);
  return r;
}

/**
 * The outbox mailer, noting for each mail the run's time and its recipient; `failing` recipients'
 * first send throws (a relay that refused it).
 */
function recordingMailer(failing: string[] = []): { mailer: Mailer; sent: { at: string; to: string; subject: string }[]; now: { ms: number } } {
  const sent: { at: string; to: string; subject: string }[] = [];
  const now = { ms: 0 };
  const refused = new Set<string>();
  const mailer: Mailer = {
    describe: 'recording outbox',
    send: async (mail: Mail) => {
      const to = mail.to[0] as string;
      if (failing.includes(to) && !refused.has(to)) {
        refused.add(to);
        throw new Error('relay said 451: try again later');
      }
      await svc.node.services.mailer.send(mail);
      sent.push({ at: new Date(now.ms).toISOString(), to, subject: mail.subject });
    },
  };
  return { mailer, sent, now };
}

/** Runs the sender every quarter hour from `from` to `to` (ISO), two runs at once each time. */
async function runEveryQuarter(from: string, to: string, mailer: ReturnType<typeof recordingMailer>) {
  const services = { ...svc.node.services, origin: () => svc.url };
  const send = createDigestSender({ ...services, mailer: mailer.mailer, log, mails: (target, atMs) => digestMails(services, target, atMs) });
  for (let t = Date.parse(from); t <= Date.parse(to); t += QUARTER) {
    mailer.now.ms = t;
    await Promise.all([send(new Date(t)), send(new Date(t))]);
  }
}

const sentTo = (sent: { at: string; to: string }[], to: string) => sent.filter((s) => s.to === to).map((s) => s.at);

describe('scheduled digest sends (controlled clock)', () => {
  it('Amsterdam in March: daily at 07:00 local on each day, weekly on the Monday after the change, monthly on the 1st; two runs at once mail once', async () => {
    const start = Date.parse('2027-03-25T00:00:00Z');
    await report('daily', 'Europe/Amsterdam', 'daily-ams@example.com', start);
    await report('weekly', 'Europe/Amsterdam', 'weekly-ams@example.com', start);
    await report('monthly', 'Europe/Amsterdam', 'monthly-ams@example.com', start);
    const rec = recordingMailer();
    await runEveryQuarter('2027-03-25T00:00:00Z', '2027-04-01T23:45:00Z', rec);
    expect(sentTo(rec.sent, 'daily-ams@example.com')).toEqual([
      '2027-03-25T06:00:00.000Z',
      '2027-03-26T06:00:00.000Z',
      '2027-03-27T06:00:00.000Z',
      '2027-03-28T05:00:00.000Z',
      '2027-03-29T05:00:00.000Z',
      '2027-03-30T05:00:00.000Z',
      '2027-03-31T05:00:00.000Z',
      '2027-04-01T05:00:00.000Z',
    ]);
    expect(sentTo(rec.sent, 'weekly-ams@example.com')).toEqual(['2027-03-29T05:00:00.000Z']);
    expect(sentTo(rec.sent, 'monthly-ams@example.com')).toEqual(['2027-04-01T05:00:00.000Z']);
    // Each for its period: the Monday's mail reports the week before it, the 1st's the month before.
    expect(rec.sent.find((s) => s.to === 'weekly-ams@example.com')?.subject).toBe(`[tinytrack] Weekly report: ${site}, 22 Mar – 28 Mar 2027`);
    expect(rec.sent.find((s) => s.to === 'monthly-ams@example.com')?.subject).toBe(`[tinytrack] Monthly report: ${site}, March 2027`);
  }, 120_000);

  it('Amsterdam in October and New York in November: 07:00 local before and after each change', async () => {
    await report('daily', 'Europe/Amsterdam', 'daily-oct@example.com', Date.parse('2027-10-29T00:00:00Z'));
    await report('weekly', 'America/New_York', 'weekly-ny@example.com', Date.parse('2027-11-05T00:00:00Z'));
    await report('daily', 'America/New_York', 'daily-ny@example.com', Date.parse('2027-11-05T00:00:00Z'));
    const rec = recordingMailer();
    await runEveryQuarter('2027-10-29T00:00:00Z', '2027-11-01T23:45:00Z', rec);
    expect(sentTo(rec.sent, 'daily-oct@example.com')).toEqual(['2027-10-29T05:00:00.000Z', '2027-10-30T05:00:00.000Z', '2027-10-31T06:00:00.000Z', '2027-11-01T06:00:00.000Z']);
    await runEveryQuarter('2027-11-05T00:00:00Z', '2027-11-08T23:45:00Z', rec);
    expect(sentTo(rec.sent, 'daily-ny@example.com')).toEqual(['2027-11-05T11:00:00.000Z', '2027-11-06T11:00:00.000Z', '2027-11-07T12:00:00.000Z', '2027-11-08T12:00:00.000Z']);
    expect(sentTo(rec.sent, 'weekly-ny@example.com')).toEqual(['2027-11-08T12:00:00.000Z']);
  }, 120_000);

  it('a failed send keeps its time and says why; the next run sends it, once', async () => {
    const start = Date.parse('2027-12-01T00:00:00Z');
    const flaky = await report('daily', 'UTC', 'flaky@example.com', start);
    const rec = recordingMailer(['flaky@example.com']);
    const stored = () => svc.node.services.registry.digests.emailReports.get(site, flaky.id);
    await runEveryQuarter('2027-12-01T06:45:00Z', '2027-12-01T07:00:00Z', rec);
    expect(sentTo(rec.sent, 'flaky@example.com')).toEqual([]);
    expect(await stored()).toMatchObject({ next_send_at: '2027-12-01T07:00:00.000Z', last_sent_at: null, last_error: 'relay said 451: try again later' });
    await runEveryQuarter('2027-12-01T07:15:00Z', '2027-12-02T06:45:00Z', rec);
    expect(sentTo(rec.sent, 'flaky@example.com')).toEqual(['2027-12-01T07:15:00.000Z']);
    expect(await stored()).toMatchObject({ next_send_at: '2027-12-02T07:00:00.000Z', last_sent_at: '2027-12-01T07:15:00.000Z', last_error: null });
    // Sent late, still the period of its due time: the day before 1 December.
    expect(rec.sent.find((s) => s.to === 'flaky@example.com')?.subject).toBe(`[tinytrack] Daily report: ${site}, Tue, 30 Nov 2027`);
  }, 120_000);

  it('a digest missed for days (the service was down) sends its latest period once, then keeps its schedule', async () => {
    await report('daily', 'UTC', 'late@example.com', Date.parse('2028-01-01T00:00:00Z'));
    const rec = recordingMailer();
    await runEveryQuarter('2028-01-05T10:00:00Z', '2028-01-06T07:00:00Z', rec);
    expect(sentTo(rec.sent, 'late@example.com')).toEqual(['2028-01-05T10:00:00.000Z', '2028-01-06T07:00:00.000Z']);
    expect(rec.sent.find((s) => s.to === 'late@example.com')?.subject).toBe(`[tinytrack] Daily report: ${site}, Tue, 4 Jan 2028`);
  }, 120_000);
});
