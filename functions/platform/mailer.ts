/** The mailer of one machine: an SMTP relay when SMTP_URL is set, else `.eml` files in DATA_DIR/outbox/ (nothing leaves the machine). */
import { join } from 'node:path';
import { OutboxMailer, SmtpMailer } from '#adapters/mail/mailers.ts';
import type { Mailer } from '#ports/mailer.ts';
import type { Config } from './config.ts';

/** The sender when MAIL_FROM is unset locally. */
export const LOCAL_MAIL_FROM = 'tinytrack <tinytrack@localhost>';

export function localMailer(config: Readonly<Config>, dataDir: string): Mailer {
  const from = config.mailFrom ?? LOCAL_MAIL_FROM;
  return config.smtpUrl ? new SmtpMailer(config.smtpUrl, from) : new OutboxMailer(join(dataDir, 'outbox'), from);
}

