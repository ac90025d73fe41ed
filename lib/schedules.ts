/**
 * Scheduled workers (DESIGN.md §1: EventBridge rules; locally, in-process
 * timers calling the same handlers), each with retries, a dead-letter queue
 * and alarms. Salt rotation: shortly after each UTC midnight, the previous
 * days' visitor salts are deleted so yesterday's hashes can never be
 * recomputed (spec: the salt is deleted when the day ends). Alert checks:
 * every minute (issue 36). E-mail digests: every quarter hour (issue 38).
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { alarmOnAny } from './alarms.ts';
import { NodeFunction } from './node-function.ts';
import { deadLetterQueue as deadLetterQueue_, messagesWaitingAlarm } from './queues.ts';
import type { EventStoreResource } from './event-store.ts';
import { grantSendMail, mailEnvironment, type MailSettings } from './mail.ts';
import { KEY_PATTERNS, grantTableRules, type TableRule } from './table-access.ts';
import { CRAWLER_TOKEN_CONTEXT_KEYS, grantUnderCredentialContext } from './imports.ts';
import { DEFAULT_CLOUDFLARE_API_URL } from './api.ts';

/** EventBridge's attempts to invoke the rotation after the first (Lambda then retries a failed run twice itself). */
export const ROTATION_RETRY_ATTEMPTS = 4;

/** The rotation's Lambda entry: the registry alone. */
export const ROTATE_SALTS_ENTRY = 'functions/aws/workers/rotate-salts.ts';

export interface SchedulesProps {
  table: dynamodb.ITable;
  /** The alert checks read API requests and web traffic. */
  eventStore: EventStoreResource;
  /** The SES sender of alert mail (lib/mail.ts); none: the checks run and log that mail is not configured. */
  mail: MailSettings | null;
  /** The key crawler links' Cloudflare tokens are sealed with (the import credentials' key, under the crawler context). */
  crawlerTokenKey: kms.IKey;
  /** The Cloudflare API's base URL (context `cloudflareApiUrl`). */
  cloudflareApiUrl?: string;
}

/** The hourly crawler sync's Lambda entry: the registry, the token key, Cloudflare, the crawler hits. */
export const CRAWLER_SYNC_ENTRY = 'functions/aws/workers/crawler-sync.ts';

/** The alert checks' Lambda entry: the registry, the event store's readers, SES. */
export const ALERT_CHECKS_ENTRY = 'functions/aws/workers/alert-checks.ts';

/** The e-mail digest sends' Lambda entry: the registry, the event store's readers, SES. */
export const DIGEST_SENDS_ENTRY = 'functions/aws/workers/digest-sends.ts';

export interface ScheduledWorkerProps {
  fn: NodeFunction;
  description: string;
  schedule: events.Schedule;
  retryAttempts: number;
  maxEventAge: Duration;
  /** What an operator reads when EventBridge gave up delivering a run, and when a run failed. */
  undelivered: string;
  failed: string;
  /** The errors alarm's period. */
  errorPeriod: Duration;
}

/** An EventBridge rule calling `fn` with retries, a dead-letter queue for runs it could not deliver, and alarms on both ways a run can fail. */
export function scheduledWorker(scope: Construct, id: string, p: ScheduledWorkerProps): { rule: events.Rule; deadLetterQueue: sqs.Queue } {
  const deadLetterQueue = deadLetterQueue_(scope, `${id}DeadLetter`);
  const rule = new events.Rule(scope, `${id}Rule`, {
    description: p.description,
    schedule: p.schedule,
    targets: [new targets.LambdaFunction(p.fn, { retryAttempts: p.retryAttempts, maxEventAge: p.maxEventAge, deadLetterQueue })],
  });
  messagesWaitingAlarm(scope, `${id}DeadLetterAlarm`, deadLetterQueue, p.undelivered);
  alarmOnAny(scope, `${id}ErrorsAlarm`, p.fn.metricErrors({ period: p.errorPeriod, statistic: 'Sum' }), p.failed);
  return { rule, deadLetterQueue };
}

/** A scheduled function that reads the registry (`table`) and the event store and mails: the alert checks, the digest sends. */
function mailingReader(
  scope: Construct,
  id: string,
  props: SchedulesProps,
  o: { entry: string; description: string; timeout: Duration; table: readonly TableRule[] },
): NodeFunction {
  const fn = new NodeFunction(scope, id, {
    entry: o.entry,
    description: o.description,
    timeout: o.timeout,
    environment: { TABLE_NAME: props.table.tableName, ...props.eventStore.environment('read'), ...mailEnvironment(props.mail) },
  });
  grantTableRules(props.table, fn, o.table);
  props.eventStore.grant(fn, 'read');
  grantSendMail(fn, props.mail, scope);
  return fn;
}

/**
 * The hourly crawler sync (issue 41): lists links on gsi1, reads and updates them under the site, opens their sealed
 * tokens (kms:Decrypt under the crawler context only), calls Cloudflare and writes the hits into the event store.
 */
function crawlerSyncWorker(scope: Construct, props: SchedulesProps): NodeFunction {
  const fn = new NodeFunction(scope, 'CrawlerSyncFunction', {
    entry: CRAWLER_SYNC_ENTRY,
    description: 'tinytrack worker: read crawler hits from linked Cloudflare zones',
    timeout: Duration.minutes(10),
    environment: {
      TABLE_NAME: props.table.tableName,
      ...props.eventStore.environment('read-write'),
      IMPORT_KMS_KEY_ID: props.crawlerTokenKey.keyArn,
      CLOUDFLARE_API_URL: props.cloudflareApiUrl ?? DEFAULT_CLOUDFLARE_API_URL,
    },
  });
  grantTableRules(props.table, fn, [
    { keys: [KEY_PATTERNS.site], actions: ['GetItem', 'UpdateItem'] },
    { keys: [KEY_PATTERNS.crawlerLinks], actions: ['Query'], index: true },
  ]);
  props.eventStore.grant(fn, 'read-write');
  grantUnderCredentialContext(props.crawlerTokenKey, fn, 'kms:Decrypt', CRAWLER_TOKEN_CONTEXT_KEYS);
  return fn;
}

export class Schedules extends Construct {
  readonly rotateSalts: NodeFunction;
  readonly rotateSaltsRule: events.Rule;
  /** Rotation events EventBridge could not deliver. */
  readonly rotateSaltsDeadLetterQueue: sqs.Queue;
  readonly alertChecks: NodeFunction;
  readonly alertChecksRule: events.Rule;
  readonly alertChecksDeadLetterQueue: sqs.Queue;
  readonly digestSends: NodeFunction;
  readonly digestSendsRule: events.Rule;
  readonly crawlerSync: NodeFunction;
  readonly crawlerSyncRule: events.Rule;
  readonly digestSendsDeadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.rotateSalts = new NodeFunction(this, 'RotateSaltsFunction', {
      entry: ROTATE_SALTS_ENTRY,
      description: 'tinytrack worker: delete the visitor salts of past UTC days',
      timeout: Duration.seconds(60),
      environment: { TABLE_NAME: props.table.tableName },
    });
    // Queries the salt items and deletes them one by one; the next collector request creates today's.
    grantTableRules(props.table, this.rotateSalts, [{ keys: [KEY_PATTERNS.salts], actions: ['Query', 'DeleteItem'] }]);
    // 00:00 UTC: the ended day's salt is gone at the day boundary (the hash code never uses it after midnight anyway).
    // A missed rotation keeps yesterday's salt, so yesterday's visitor hashes could still be
    // recomputed: the spec's privacy promise. Both ways it can fail raise an alarm.
    const rotation = scheduledWorker(this, 'RotateSalts', {
      fn: this.rotateSalts,
      description: 'tinytrack: rotate visitor salts daily at 00:00 UTC',
      schedule: events.Schedule.cron({ minute: '0', hour: '0' }),
      retryAttempts: ROTATION_RETRY_ATTEMPTS,
      maxEventAge: Duration.hours(2),
      undelivered: 'tinytrack: the daily salt rotation was not delivered (EventBridge gave up); past salts are NOT deleted: invoke the rotation function by hand',
      failed: 'tinytrack: the daily salt rotation failed; past salts may NOT be deleted: read its logs and invoke the rotation function again',
      errorPeriod: Duration.hours(1),
    });
    this.rotateSaltsRule = rotation.rule;
    this.rotateSaltsDeadLetterQueue = rotation.deadLetterQueue;

    // Reads sites and rules, moves a rule's state and notes its changes under the site; lists enabled rules on gsi1.
    this.alertChecks = mailingReader(this, 'AlertChecksFunction', props, {
      entry: ALERT_CHECKS_ENTRY,
      description: 'tinytrack worker: check alert rules every minute and mail when one fires or resolves',
      timeout: Duration.seconds(50),
      table: [
        { keys: [KEY_PATTERNS.site], actions: ['GetItem', 'Query', 'UpdateItem', 'PutItem'] },
        { keys: [KEY_PATTERNS.enabledAlerts], actions: ['Query'], index: true },
      ],
    });
    // A late check is still worth running (its window moves with it), but not one from long ago.
    const checks = scheduledWorker(this, 'AlertChecks', {
      fn: this.alertChecks,
      description: 'tinytrack: check alert rules every minute',
      schedule: events.Schedule.rate(Duration.minutes(1)),
      retryAttempts: 2,
      maxEventAge: Duration.minutes(5),
      undelivered: 'tinytrack: alert checks were not delivered (EventBridge gave up): alerts may not fire or resolve',
      failed: 'tinytrack: alert checks failed: alerts may not fire or resolve; read the alert-checks function logs',
      errorPeriod: Duration.minutes(5),
    });
    this.alertChecksRule = checks.rule;
    this.alertChecksDeadLetterQueue = checks.deadLetterQueue;

    // Reads sites, goals and reports under the site, lists an account's sites, reads workspace digests under the account,
    // claims and moves digests (UpdateItem), lists the due ones on gsi1, reads (or first makes) the unsubscribe secret.
    this.digestSends = mailingReader(this, 'DigestSendsFunction', props, {
      entry: DIGEST_SENDS_ENTRY,
      description: 'tinytrack worker: send the e-mail digests due at 07:00 in their time zones',
      timeout: Duration.minutes(5),
      table: [
        { keys: [KEY_PATTERNS.site, KEY_PATTERNS.account], actions: ['GetItem', 'Query', 'UpdateItem'] },
        { keys: [KEY_PATTERNS.unsubscribeSecret], actions: ['GetItem', 'PutItem'] },
        { keys: [KEY_PATTERNS.digestsDue, KEY_PATTERNS.sitesOf], actions: ['Query'], index: true },
      ],
    });
    // Every quarter hour, so 07:00 comes on time in zones a half or quarter hour off UTC; a failed send waits for the next run.
    const digests = scheduledWorker(this, 'DigestSends', {
      fn: this.digestSends,
      description: 'tinytrack: send due e-mail digests every 15 minutes',
      schedule: events.Schedule.cron({ minute: '0/15' }),
      retryAttempts: 2,
      maxEventAge: Duration.minutes(30),
      undelivered: 'tinytrack: e-mail digest sends were not delivered (EventBridge gave up): the next run sends what is due',
      failed: 'tinytrack: e-mail digest sends failed: read the digest-sends function logs (each digest records its last_error)',
      errorPeriod: Duration.minutes(15),
    });
    this.digestSendsRule = digests.rule;
    this.digestSendsDeadLetterQueue = digests.deadLetterQueue;
    this.crawlerSync = crawlerSyncWorker(this, props);
    this.crawlerSyncRule = scheduledWorker(this, 'CrawlerSync', {
      fn: this.crawlerSync,
      description: 'tinytrack: read crawler hits from linked Cloudflare zones every hour',
      schedule: events.Schedule.cron({ minute: '5' }),
      retryAttempts: 1,
      maxEventAge: Duration.minutes(30),
      undelivered: 'tinytrack: the crawler sync was not delivered (EventBridge gave up): the next run reads the missed hours',
      failed: 'tinytrack: the crawler sync failed: read the crawler-sync function logs (each link records its last_error)',
      errorPeriod: Duration.hours(1),
    }).rule;
  }

  /** Where digests link to (the dashboard, the unsubscribe route): known once the stack has its public origin. */
  linkTo(origin: string): void {
    this.digestSends.addEnvironment('PUBLIC_URL', origin);
  }
}
