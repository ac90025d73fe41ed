/**
 * The tinytrack stack (DESIGN.md §1): registry table, identity provider,
 * the HTTP API with one function per route group, the collector's Function
 * URL, the event queue and its writer into the event store (Timestream, or
 * ClickHouse with `-c eventStore=clickhouse`: lib/clickhouse.ts), the
 * historical imports (chunk queue, credential key, worker), and the scheduled
 * workers; one SNS topic that every alarm notifies, and the guard rails
 * against a flood read from context (lib/context.ts).
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { routes } from '#http/routes.ts';
import { Alarms } from './alarms.ts';
import { Api, publicUrlsFromContext } from './api.ts';
import { Auth, dashboardSignIn, externalIssuerFromContext } from './auth.ts';
import { Dashboard } from './dashboard.ts';
import { ClickHouse } from './clickhouse.ts';
import { contextString, guardRailsFromContext } from './context.ts';
import type { EventStoreResource } from './event-store.ts';
import { EventWriter } from './event-writer.ts';
import { Imports } from './imports.ts';
import { WorkQueue } from './queues.ts';
import { Schedules } from './schedules.ts';
import { Storage } from './storage.ts';
import { Timestream } from './timestream.ts';
import { buildOpenApi } from '#http/openapi.ts';

export interface TinytrackStackProps extends StackProps {
  /** The built, minified latest.js, inlined into the collector function. */
  trackerScript: string;
  /** The built dashboard (functions/dashboard/build.ts writeDashboard), uploaded to its bucket. */
  dashboardDir: string;
}

export class TinytrackStack extends Stack {
  readonly storage: Storage;
  readonly auth: Auth;
  readonly events: WorkQueue;
  readonly eventStore: EventStoreResource;
  readonly writer: EventWriter;
  readonly imports: Imports;
  readonly api: Api;
  readonly schedules: Schedules;
  readonly alarms: Alarms;
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: TinytrackStackProps) {
    super(scope, id, props);
    const guardRails = guardRailsFromContext(this);
    this.alarms = new Alarms(this, 'Alarms', guardRails.alarmEmail ? { email: guardRails.alarmEmail } : {});
    this.storage = new Storage(this, 'Storage');
    const external = externalIssuerFromContext(this);
    const domainPrefix = contextString(this, 'authDomainPrefix');
    this.auth = new Auth(this, 'Auth', { ...(external ? { external } : {}), ...(domainPrefix ? { domainPrefix } : {}) });
    this.eventStore = eventStoreFromContext(this);
    this.events = new WorkQueue(this, 'Events', {
      consumerTimeout: this.eventStore.writer.timeout,
      consumerBatchingWindow: this.eventStore.writer.batchingWindow,
      // Anything here is collected data that is not in the event store yet.
      deadLetterAlarmDescription: 'tinytrack: collected events in the dead-letter queue (not stored); redrive once the event store works',
    });
    this.writer = new EventWriter(this, 'EventWriter', {
      queue: this.events.queue,
      store: this.eventStore,
      maxConcurrency: guardRails.writerMaxConcurrency,
    });
    this.imports = new Imports(this, 'Imports', { table: this.storage.table, eventStore: this.eventStore });
    this.api = new Api(this, 'Api', {
      routes,
      table: this.storage.table,
      eventQueue: this.events.queue,
      eventStore: this.eventStore,
      importQueue: this.imports.queue.queue,
      importKey: this.imports.key,
      iconBucket: this.storage.icons,
      authEnvironment: this.auth.environment,
      trackerScript: props.trackerScript,
      apiDocument: JSON.stringify(buildOpenApi()),
      ...(guardRails.collectorReservedConcurrency !== undefined ? { reservedConcurrency: { collector: guardRails.collectorReservedConcurrency } } : {}),
      throttle: guardRails.apiThrottle,
      publicUrls: publicUrlsFromContext(this),
    });
    this.schedules = new Schedules(this, 'Schedules', { table: this.storage.table });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      assetsDir: props.dashboardDir,
      api: this.api.httpApi,
      signIn: (origin) => dashboardSignIn(this.auth, origin),
    });

    const collectorUrl = this.api.functionUrls.get('collector');
    if (!collectorUrl) throw new Error('the collector route group has no Function URL (lib/api.ts GROUP_ACCESS)');

    new CfnOutput(this, 'DashboardUrl', { value: this.dashboard.origin, description: 'The dashboard, and the API on the same origin under /api' });
    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint, description: 'Base URL of the API and the collector' });
    new CfnOutput(this, 'CollectorUrl', {
      value: collectorUrl.url,
      description: 'Lambda Function URL of the collector (latest.js and the beacon routes); ends with a slash',
    });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'EventQueueUrl', { value: this.events.queue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.events.deadLetterQueue.queueUrl, description: 'Rows the writer could not store; redrive to EventQueueUrl' });
    new CfnOutput(this, 'ImportQueueUrl', { value: this.imports.queue.queue.queueUrl, description: 'Import chunks (one message per month and kind)' });
    new CfnOutput(this, 'ImportDeadLetterQueueUrl', {
      value: this.imports.queue.deadLetterQueue.queueUrl,
      description: 'Import chunks the worker could not store; redrive to ImportQueueUrl, or cancel and retry their jobs',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'Every alarm notifies this SNS topic; subscribe more endpoints to it' });
    if (this.eventStore instanceof Timestream) {
      new CfnOutput(this, 'TimestreamDatabase', { value: this.eventStore.environment.TIMESTREAM_DATABASE as string });
      new CfnOutput(this, 'TimestreamTable', { value: this.eventStore.environment.TIMESTREAM_TABLE as string });
    }
    new CfnOutput(this, 'AuthIssuer', { value: this.auth.environment.AUTH_ISSUER as string });
    if (this.auth.userPool && this.auth.userPoolClient) {
      new CfnOutput(this, 'UserPoolId', { value: this.auth.userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: this.auth.userPoolClient.userPoolClientId });
    }
  }
}

/**
 * `-c clickhouseUrl=https://… -c clickhouseSecretArn=arn:…` (ClickHouse, the
 * default: a new AWS account can no longer create Timestream, and no
 * Timestream resource is created) or `-c eventStore=timestream` (accounts
 * that already have Timestream for LiveAnalytics).
 */
function eventStoreFromContext(scope: Construct): EventStoreResource {
  const engine = contextString(scope, 'eventStore') ?? 'clickhouse';
  if (engine === 'timestream') return new Timestream(scope, 'EventStore');
  if (engine !== 'clickhouse') throw new Error('context eventStore must be clickhouse or timestream');
  const url = contextString(scope, 'clickhouseUrl');
  const secretArn = contextString(scope, 'clickhouseSecretArn');
  if (!url || !secretArn) {
    throw new Error(
      'the event store is ClickHouse: pass -c clickhouseUrl=https://… -c clickhouseSecretArn=arn:… (a secret holding {"username", "password"}), ' +
        'or -c eventStore=timestream on an account that has Timestream for LiveAnalytics',
    );
  }
  const database = contextString(scope, 'clickhouseDatabase');
  return new ClickHouse(scope, 'EventStore', { url, secretArn, ...(database ? { database } : {}) });
}
