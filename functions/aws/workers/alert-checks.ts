/**
 * Lambda entry of the every-minute alert checks (EventBridge): the registry,
 * the event store's readers (API requests and web traffic) and SES. The
 * minute checked is the event's own time, floored, so a retried delivery
 * checks the same minute (and mails nothing twice).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ScheduledEvent } from 'aws-lambda';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { awsClient } from '#aws/clients.ts';
import { awsReportStores } from '#aws/event-store.ts';
import { awsMailer } from '#aws/mailer.ts';
import { loadConfig } from '#platform/config.ts';
import { log } from '#platform/log.ts';
import { createAlertChecker } from '#workers/alert-checks.ts';

const config = loadConfig();

const check = createAlertChecker({
  registry: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName),
  ...(await awsReportStores(config)),
  mailer: awsMailer(config),
  log,
  alertsUrl: null,
});

export const handler = async (event: Pick<ScheduledEvent, 'time'>) => check(new Date(Math.floor(Date.parse(event.time) / 60_000) * 60_000));
