/** The e-mail digest shapes of the OpenAPI document (issue 38). */
import { z } from 'zod';
import { Timestamp } from './schemas.ts';

const Frequency = z.enum(['daily', 'weekly', 'monthly']).describe('Sent at 07:00 in `tz`: daily for the previous day, weekly on Mondays for the previous ISO week, monthly on the 1st for the previous month');
const Tz = z.string().describe('An IANA time zone name');
const Recipients = z.array(z.email()).min(1).max(10);
const Inherits = z.array(z.enum(['frequency', 'tz', 'recipients'])).describe('The fields that follow the account’s report defaults');
const Delivery = {
  enabled: z.boolean(),
  last_sent_at: Timestamp.nullable(),
  next_send_at: Timestamp.nullable().describe('None while disabled'),
  last_error: z.string().nullable().describe('Why the last send failed; the next run tries again'),
};

export const EmailReport = z
  .object({ id: z.string(), frequency: Frequency, recipients: z.array(z.string()), tz: Tz, inherits: Inherits, ...Delivery, created_at: Timestamp })
  .meta({ id: 'EmailReport' });
export const EmailReportList = z.object({ reports: z.array(EmailReport) }).meta({ id: 'EmailReportList' });
export const CreateEmailReportRequest = z
  .object({
    frequency: Frequency.nullable().optional(),
    tz: Tz.nullable().optional(),
    recipients: Recipients.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .describe('Fields left out (or null) follow the account’s report defaults; without recipients there, an ID token’s e-mail')
  .meta({ id: 'CreateEmailReportRequest' });
export const UpdateEmailReportRequest = CreateEmailReportRequest.meta({ id: 'UpdateEmailReportRequest' });
export const DeletedEmailReport = z.object({ deleted: z.string() }).meta({ id: 'DeletedEmailReport' });
export const DigestSent = z.object({ sent: z.literal(true), recipients: z.array(z.string()) }).meta({ id: 'DigestSent' });

export const ReportDefaults = z.object({ frequency: Frequency, tz: Tz, recipients: z.array(z.string()) }).meta({ id: 'ReportDefaults' });
export const UpdateReportDefaultsRequest = z
  .object({ frequency: Frequency.optional(), tz: Tz.optional(), recipients: Recipients.optional() })
  .describe('Fields left out keep their value; reports that follow a field take its new value')
  .meta({ id: 'UpdateReportDefaultsRequest' });

const Sites = z.union([z.literal('all'), z.array(z.string())]).describe('"all" of the account’s sites, or some of them by hostname');
export const WorkspaceDigest = z.object({ frequency: Frequency, tz: Tz, recipients: z.array(z.string()), sites: Sites, ...Delivery }).meta({ id: 'WorkspaceDigest' });
export const UpdateWorkspaceDigestRequest = z
  .object({ enabled: z.boolean().optional(), frequency: Frequency.optional(), tz: Tz.optional(), recipients: Recipients.optional(), sites: Sites.optional() })
  .describe('Fields left out keep their value; enabled needs recipients')
  .meta({ id: 'UpdateWorkspaceDigestRequest' });
export const DigestPreview = z.object({ subject: z.string(), html: z.string(), text: z.string() }).meta({ id: 'DigestPreview' });
