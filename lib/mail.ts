/**
 * Alert mail on AWS (issue 36): SES v2, sending as one verified identity.
 * `-c mailFrom=alerts@example.com -c sesIdentity=example.com` (the identity
 * is the domain or the address verified in SES): the functions that mail get
 * MAIL_FROM and `ses:SendEmail` on that identity alone, held to that From
 * address. Without them nothing may send: the alert checks log that mail is
 * not configured and the test send answers 501. New SES accounts start in the
 * sandbox: they send only to verified addresses until production access is granted.
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { contextString } from './context.ts';

export interface MailSettings {
  from: string;
  identity: string;
}

/** The sender and its SES identity from context, or null when mail is not configured; one without the other is an error. */
export function mailFromContext(scope: Construct): MailSettings | null {
  const from = contextString(scope, 'mailFrom');
  const identity = contextString(scope, 'sesIdentity');
  if (!from && !identity) return null;
  if (!from || !identity) throw new Error('context mailFrom and sesIdentity go together: -c mailFrom=alerts@example.com -c sesIdentity=example.com');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(from)) throw new Error('context mailFrom must be an e-mail address');
  if (!from.toLowerCase().endsWith(identity.toLowerCase())) throw new Error('context mailFrom must be an address of the sesIdentity domain (or the identity itself)');
  return { from, identity };
}

/** MAIL_FROM for a function that mails, or nothing. */
export const mailEnvironment = (mail: MailSettings | null): Record<string, string> => (mail ? { MAIL_FROM: mail.from } : {});

/** `ses:SendEmail` on the configured identity only, as its From address only. */
export function grantSendMail(grantee: iam.IGrantable, mail: MailSettings | null, scope: Construct): void {
  if (!mail) return;
  const stack = Stack.of(scope);
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [stack.formatArn({ service: 'ses', resource: 'identity', resourceName: mail.identity })],
      conditions: { StringEquals: { 'ses:FromAddress': mail.from } },
    }),
  );
}
