/**
 * The Mailer port's adapters (issue 36): `.eml` files in DATA_DIR/outbox/ (the
 * local default), an SMTP relay (SMTP_URL) through nodemailer, and SES v2 on
 * AWS. nodemailer builds every message (headers encoded, multipart text and
 * HTML), so no MIME is written by hand here.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import nodemailer from 'nodemailer';
import type { Mail, Mailer } from '#ports/mailer.ts';

const message = (from: string, mail: Mail) => ({ from, to: [...mail.to], subject: mail.subject, text: mail.text, html: mail.html });

/** One owner-only `.eml` file per message, written whole (a temporary name, then renamed): a reader never sees half a message. */
export class OutboxMailer implements Mailer {
  private readonly composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(
    private readonly dir: string,
    private readonly from: string,
  ) {}

  get describe(): string {
    return `outbox ${this.dir}`;
  }

  async send(mail: Mail): Promise<void> {
    const info = await this.composer.sendMail(message(this.from, mail));
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // Sortable by time, unique by the random part.
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
    const temporary = join(this.dir, `.${name}.tmp`);
    writeFileSync(temporary, info.message as Buffer, { mode: 0o600 });
    renameSync(temporary, join(this.dir, name));
  }
}

/** A relay named by SMTP_URL (`smtp://user:pass@host:587`, `smtps://…`); the password never leaves the transport. */
export class SmtpMailer implements Mailer {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;
  readonly describe: string;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url);
    const parsed = new URL(url);
    this.describe = `SMTP ${parsed.hostname}:${parsed.port || (parsed.protocol === 'smtps:' ? '465' : '587')}`;
  }

  async send(mail: Mail): Promise<void> {
    try {
      await this.transport.sendMail(message(this.from, mail));
    } catch (e) {
      // The relay's own words, never the URL (it holds the password).
      throw new Error(`SMTP send failed: ${(e as { code?: string }).code ?? (e as Error).name}`);
    }
  }
}

/** SES v2: Simple content, text and HTML, from the configured identity (the function may send as it alone). */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: Pick<SESv2Client, 'send'>,
    private readonly from: string,
  ) {}

  get describe(): string {
    return `SES (${this.from})`;
  }

  async send(mail: Mail): Promise<void> {
    await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [...mail.to] },
        Content: {
          Simple: {
            Subject: { Data: mail.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: mail.text, Charset: 'UTF-8' }, Html: { Data: mail.html, Charset: 'UTF-8' } },
          },
        },
      }),
    );
  }
}
