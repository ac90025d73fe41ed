/** The mailers (SMTP against a real SMTP conversation, SES v2 with a mocked client: no local SES exists), the scheduler on a moved clock, and the alert rules' pure parts. */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { SesMailer, SmtpMailer } from '#adapters/mail/mailers.ts';
import { TimerScheduler } from '#local/scheduler.ts';
import { nextState, parseAlertCreate, parseAlertPatch } from '#domain/alerts/rule.ts';
import { composeMail } from '#domain/mail/compose.ts';
import type { Timers } from '#workers/rotate-salts.ts';

const mail = { to: ['a@example.com', 'b@example.com'], subject: 'Hello', text: 'plain body', html: '<p>html body</p>' };

/** A minimal SMTP receiver: answers each command and keeps what DATA carried. */
function smtpReceiver(): Promise<{ server: Server; port: number; received: { rcpt: string[]; data: string }[] }> {
  const received: { rcpt: string[]; data: string }[] = [];
  const server = createServer((socket: Socket) => {
    let rcpt: string[] = [];
    let data: string | null = null;
    let buffer = '';
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      let at: number;
      while ((at = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (data !== null) {
          if (line === '.') {
            received.push({ rcpt, data });
            data = null;
            rcpt = [];
            socket.write('250 queued\r\n');
          } else data += `${line}\n`;
        } else if (/^EHLO/i.test(line)) socket.write('250-test\r\n250 8BITMIME\r\n');
        else if (/^RCPT TO:/i.test(line)) {
          rcpt.push(line.replace(/^RCPT TO:<(.*)>.*$/i, '$1'));
          socket.write('250 ok\r\n');
        } else if (/^DATA/i.test(line)) {
          data = '';
          socket.write('354 go\r\n');
        } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, port: (server.address() as { port: number }).port, received })));
}

let server: Server | null = null;
afterEach(() => {
  server?.close();
  server = null;
});

describe('SmtpMailer', () => {
  it('hands the message to the relay SMTP_URL names: both recipients, both parts', async () => {
    const smtp = await smtpReceiver();
    server = smtp.server;
    const mailer = new SmtpMailer(`smtp://user:secret@127.0.0.1:${smtp.port}?ignoreTLS=true`, 'alerts@example.com');
    expect(mailer.describe).toBe(`SMTP 127.0.0.1:${smtp.port}`);
    await mailer.send(mail);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]?.rcpt).toEqual(['a@example.com', 'b@example.com']);
    expect(smtp.received[0]?.data).toContain('plain body');
    expect(smtp.received[0]?.data).toContain('<p>html body</p>');
  });

  it('says why a send failed without the URL (its password)', async () => {
    const mailer = new SmtpMailer('smtp://user:hunter2@127.0.0.1:1', 'alerts@example.com');
    const error = await mailer.send(mail).catch((e: Error) => e);
    expect(String(error)).toMatch(/SMTP send failed/);
    expect(String(error)).not.toContain('hunter2');
  });
});

describe('SesMailer', () => {
  it('sends Simple content, text and HTML, from the configured sender to the recipients', async () => {
    const sent: SendEmailCommand[] = [];
    const mailer = new SesMailer({ send: async (command: SendEmailCommand) => void sent.push(command) } as never, 'alerts@example.com');
    await mailer.send(mail);
    expect(sent[0]?.input).toEqual({
      FromEmailAddress: 'alerts@example.com',
      Destination: { ToAddresses: ['a@example.com', 'b@example.com'] },
      Content: { Simple: { Subject: { Data: 'Hello', Charset: 'UTF-8' }, Body: { Text: { Data: 'plain body', Charset: 'UTF-8' }, Html: { Data: '<p>html body</p>', Charset: 'UTF-8' } } } },
    });
  });
});

describe('composeMail', () => {
  it('escapes every value in the HTML, keeps them as written in the text', () => {
    const m = composeMail({ to: ['x@example.com'], subject: 's', title: '<b>T</b>', paragraphs: ['a & b'], lines: [['Route', '/x?a=<1>']], link: { text: 'open', url: 'https://e.example/?a="1"' } });
    expect(m.html).toContain('&lt;b&gt;T&lt;/b&gt;');
    expect(m.html).toContain('a &amp; b');
    expect(m.html).toContain('/x?a=&lt;1&gt;');
    expect(m.html).toContain('href="https://e.example/?a=&quot;1&quot;"');
    expect(m.text).toContain('Route: /x?a=<1>');
  });
});

describe('TimerScheduler', () => {
  /** Timers fired by hand, on a clock moved by hand. */
  function fakeTime(start: number) {
    let now = start;
    const pending = new Map<number, { run: () => void; at: number }>();
    let next = 0;
    const timers: Timers = {
      set: (run, ms) => {
        pending.set(++next, { run, at: now + ms });
        return next;
      },
      clear: (t) => void pending.delete(t as number),
    };
    const advanceTo = async (t: number) => {
      now = t;
      for (const [id, p] of [...pending].sort(([, a], [, b]) => a.at - b.at)) {
        if (p.at <= now) {
          pending.delete(id);
          p.run();
        }
      }
      await new Promise((r) => setTimeout(r, 0));
    };
    return { clock: { now: () => new Date(now) }, timers, advanceTo, pending };
  }

  it('runs a job at each whole minute with that minute, skips a run while the previous goes on, and stops', async () => {
    const t0 = Date.UTC(2026, 10, 28, 12, 0, 30);
    const time = fakeTime(t0);
    const warnings: string[] = [];
    const scheduler = new TimerScheduler(time.clock, { warn: (m) => warnings.push(m), error: () => {} }, time.timers);
    const minutes: string[] = [];
    let release: () => void = () => {};
    scheduler.add({
      name: 'checks',
      everyMinutes: 1,
      run: async (minute) => {
        minutes.push(minute.toISOString());
        if (minutes.length === 2) await new Promise<void>((ok) => (release = ok));
      },
    });
    await time.advanceTo(t0 + 30_000);
    expect(minutes).toEqual(['2026-11-28T12:01:00.000Z']);
    await time.advanceTo(t0 + 90_000);
    await time.advanceTo(t0 + 150_000);
    expect(minutes).toEqual(['2026-11-28T12:01:00.000Z', '2026-11-28T12:02:00.000Z']);
    expect(warnings).toEqual(['scheduled run skipped: the previous one is still going']);
    release();
    const stopped = scheduler.stop();
    await stopped;
    expect(time.pending.size).toBe(0);
  });
});

describe('alert rules', () => {
  it('defaults recipients to the ID token e-mail, requires them of a key, and moves state by the comparison', () => {
    const body = { name: 'n', metric: 'requests', comparator: '<', threshold: 10, window_minutes: 15 };
    expect(parseAlertCreate(body, 'me@example.com', false)).toMatchObject({ ok: true, value: { recipients: ['me@example.com'], enabled: true, route: null } });
    expect(parseAlertCreate(body, null, true)).toEqual({ ok: false, error: 'recipients are required with a management key' });
    expect(parseAlertPatch({ metric: 'error_rate' }, { ...body, metric: 'requests', comparator: '<', route: null, recipients: ['a@b.co'], enabled: true })).toEqual({
      ok: false,
      error: 'error_rate threshold must be from 0 to 1',
    });
    expect(nextState({ comparator: '<', threshold: 10 }, 3)).toBe('firing');
    expect(nextState({ comparator: '<', threshold: 10 }, 10)).toBe('ok');
    expect(nextState({ comparator: '>', threshold: 0.1 }, null)).toBeNull();
  });
});
