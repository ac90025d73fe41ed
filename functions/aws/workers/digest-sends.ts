/**
 * Lambda entry of the quarter-hourly e-mail digest sends (EventBridge): the
 * registry, the event store's readers and SES; links point at PUBLIC_URL's
 * first origin. The time is the event's own, floored to the minute, so a
 * retried delivery runs as the same time (and claims keep it from sending twice).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ScheduledEvent } from 'aws-lambda';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { awsClient } from '#aws/clients.ts';
import { awsReportStores } from '#aws/event-store.ts';
import { awsMailer } from '#aws/mailer.ts';
import { loadConfig } from '#platform/config.ts';
import { log } from '#platform/log.ts';
import { createDigestSender } from '#workers/digest-sends.ts';
import { digestMails } from '#reports/digest-reports.ts';

const config = loadConfig();
const origin = config.publicUrls?.[0] ?? null;

const composing = { registry: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName), ...(await awsReportStores(config)), origin: () => origin };

const send = createDigestSender({ ...composing, mailer: awsMailer(config), log, mails: (target, at) => digestMails(composing, target, at) });

export const handler = async (event: Pick<ScheduledEvent, 'time'>) => send(new Date(Math.floor(Date.parse(event.time) / 60_000) * 60_000));
