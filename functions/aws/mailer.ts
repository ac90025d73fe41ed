/** Alert mail on AWS: SES v2 as MAIL_FROM (the stack's `-c mailFrom`); without it, every send refuses with 501 `mail is not configured on this deployment`. */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SesMailer } from '#adapters/mail/mailers.ts';
import { MailNotConfiguredError } from '#domain/errors.ts';
import type { Mailer } from '#ports/mailer.ts';
import type { Config } from '#platform/config.ts';
import { awsClient } from './clients.ts';

const NO_MAIL: Mailer = { describe: 'none (deploy with -c mailFrom and -c sesIdentity)', send: () => Promise.reject(new MailNotConfiguredError()) };

export const awsMailer = (config: Readonly<Config>): Mailer => (config.mailFrom ? new SesMailer(awsClient(SESv2Client), config.mailFrom) : NO_MAIL);
