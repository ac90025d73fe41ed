/**
 * The tinytrack stack (DESIGN.md §1): registry table, identity provider,
 * the HTTP API with one function per route group, the collector's Function
 * URL, the event queue and its writer into the event store (ClickHouse,
 * lib/clickhouse.ts, or Timestream with `-c eventStore=timestream`), the
 * historical imports (chunk queue, credential key, worker), the scheduled
 * workers and the dashboard on CloudFront (`-c dashboard=false` leaves it
 * out); one SNS topic that every alarm notifies, and the guard rails
 * against a flood read from context (lib/context.ts).
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SESSION_DAYS } from '#domain/dashboard-session.ts';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { DashboardConfig } from '#dashboard/config.ts';
import type { Construct } from 'constructs';
import { routes } from '#http/routes.ts';
import { Alarms } from './alarms.ts';
import { Api, GROUP_ACCESS, publicUrlsFromContext } from './api.ts';
import { Auth, dashboardSignIn, externalIssuerFromContext } from './auth.ts';
import { Dashboard } from './dashboard.ts';
import { ClickHouse } from './clickhouse.ts';
import { S3EventStore } from './s3-events.ts';
import { EventCompaction } from './compaction.ts';
import { contextFlag, contextInteger, contextOrigin, contextString, guardRailsFromContext } from './context.ts';
import { DashboardEdgeFunctions } from './dashboard-edge.ts';
import type { EventStoreResource } from './event-store.ts';
import { EventWriter } from './event-writer.ts';
import { Imports } from './imports.ts';
import { WorkQueue } from './queues.ts';
import { Schedules } from './schedules.ts';
import { SearchConsoleSync } from './search-console.ts';
import { RetentionPurge } from './retention.ts';
import { RollupWarm } from './rollup-warm.ts';
import { CNIL_MAX_MONTHS } from '#domain/data-retention/retention.ts';
import { mailFromContext } from './mail.ts';
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
  /** The S3 store's hourly compaction (issue 44); null on the other stores. */
  readonly compaction: EventCompaction | null;
  readonly writer: EventWriter;
  readonly imports: Imports;
  readonly api: Api;
  readonly schedules: Schedules;
  /** The daily Search Console sync; none on Timestream (frozen: no Search Console table). */
  readonly searchSync: SearchConsoleSync | null;
  /** The daily retention purge (issue 42); none on Timestream (its table's own retention only). */
  readonly retentionPurge: RetentionPurge | null;
  /** The daily rollup warm-up (issue 43): ClickHouse only, Timestream keeps no rollups. */
  readonly rollupWarm: RollupWarm | null;
  readonly alarms: Alarms;
  /** Unset with `-c dashboard=false`. */
  readonly dashboard?: Dashboard;
  /** The dashboard's session routes and embed page on the API; unset with `-c dashboard=false`. */
  readonly dashboardEdge?: DashboardEdgeFunctions;
  /** The streaming groups' Function URLs, the live stream's and the export's (made once the dashboard's origin is known). */
  private readonly streamingUrls = new Map<'live' | 'export', lambda.FunctionUrl>();

  constructor(scope: Construct, id: string, props: TinytrackStackProps) {
    super(scope, id, props);
    const guardRails = guardRailsFromContext(this);
    this.alarms = new Alarms(this, 'Alarms', guardRails.alarmEmail ? { email: guardRails.alarmEmail } : {});
    this.storage = new Storage(this, 'Storage');
    const external = externalIssuerFromContext(this);
    const domainPrefix = contextString(this, 'authDomainPrefix');
    const { dashboard, dashboardOrigin } = dashboardFromContext(this);
    const sessionDays = contextInteger(this, 'dashboardSessionDays', 1, 365) ?? DEFAULT_SESSION_DAYS;
    const retentionMaxMonths = contextInteger(this, 'retentionMaxMonths', CNIL_MAX_MONTHS, 1200) ?? CNIL_MAX_MONTHS;
    this.auth = new Auth(this, 'Auth', {
      ...(external ? { external } : {}),
      ...(domainPrefix ? { domainPrefix } : {}),
      hostedSignIn: dashboard || dashboardOrigin !== undefined,
      // Sessions over refresh tokens need the session routes on the dashboard's origin: the stack's own.
      ...(dashboard ? { sessionDays } : {}),
    });
    this.eventStore = eventStoreFromContext(this);
    const mail = mailFromContext(this);
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
    this.imports = new Imports(this, 'Imports', { table: this.storage.table, eventStore: this.eventStore, maxConcurrency: guardRails.importWorkerMaxConcurrency });
    // Crawler hits (issue 41): the Cloudflare API's base URL (context `cloudflareApiUrl`), its public address by default.
    const cloudflareApiUrl = (this.node.tryGetContext('cloudflareApiUrl') as string | undefined) || undefined;
    this.api = new Api(this, 'Api', {
      cloudflareApiUrl,
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
      mail,
      retentionMaxMonths,
    });
    this.schedules = new Schedules(this, 'Schedules', { table: this.storage.table, eventStore: this.eventStore, mail, crawlerTokenKey: this.imports.key, cloudflareApiUrl });
    this.retentionPurge = this.eventStore instanceof ClickHouse || this.eventStore instanceof S3EventStore ? new RetentionPurge(this, 'RetentionPurge', { table: this.storage.table, eventStore: this.eventStore, maxMonths: retentionMaxMonths }) : null;
    this.rollupWarm = this.eventStore instanceof ClickHouse ? new RollupWarm(this, 'RollupWarm', { table: this.storage.table, eventStore: this.eventStore }) : null;
    this.compaction = this.eventStore instanceof S3EventStore ? new EventCompaction(this, 'EventCompaction', { eventStore: this.eventStore }) : null;
    this.searchSync = this.eventStore instanceof ClickHouse ? new SearchConsoleSync(this, 'SearchConsoleSync', { table: this.storage.table, eventStore: this.eventStore, key: this.imports.key }) : null;
    if (this.eventStore instanceof ClickHouse) {
      // Every function that talks to ClickHouse feeds its failures into one alarm.
      const readers = [...this.api.functions].filter(([group]) => GROUP_ACCESS[group].eventStore !== 'none').map(([, fn]) => fn);
      for (const fn of [this.writer.function, this.imports.worker, this.schedules.alertChecks, this.schedules.digestSends, this.schedules.crawlerSync, ...(this.searchSync ? [this.searchSync.function] : []), ...(this.retentionPurge ? [this.retentionPurge.function] : []), ...(this.rollupWarm ? [this.rollupWarm.function] : []), ...readers]) this.eventStore.watch(fn);
    }
    if (dashboard) {
      this.dashboardEdge = new DashboardEdgeFunctions(this, 'DashboardEdge', {
        httpApi: this.api.httpApi,
        table: this.storage.table,
        auth: this.auth,
        page: readFileSync(join(props.dashboardDir, 'index.html'), 'utf8'),
        sessionDays,
      });
      const session = this.dashboardEdge.session !== undefined;
      this.dashboard = new Dashboard(this, 'Dashboard', {
        assetsDir: props.dashboardDir,
        api: this.api.httpApi,
        streamingUrls: (origin) => this.addStreamingUrls([origin]),
        signIn: (origin) => dashboardSignIn(this.auth, origin, session),
        sessionRoutes: session,
      });
      this.dashboardEdge.useDashboardOrigin(this.dashboard.origin);
      new CfnOutput(this, 'DashboardUrl', { value: this.dashboard.origin, description: 'The dashboard, and the API on the same origin under /api' });
    } else {
      this.dashboardElsewhere(dashboardOrigin);
    }
    // E-mail digests link to the dashboard, and unsubscribe under its /api (proxied to the API); to the API without one.
    const linkOrigin = this.dashboard?.origin ?? dashboardOrigin ?? this.api.httpApi.apiEndpoint;
    this.schedules.linkTo(linkOrigin);
    this.api.functions.get('digests')?.addEnvironment('PUBLIC_URL', linkOrigin);

    const collectorUrl = this.api.functionUrls.get('collector');
    if (!collectorUrl) throw new Error('the collector route group has no Function URL (lib/api.ts GROUP_ACCESS)');

    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint, description: 'Base URL of the API and the collector' });
    new CfnOutput(this, 'CollectorUrl', {
      value: collectorUrl.url,
      description: 'Lambda Function URL of the collector (latest.js and the beacon routes); ends with a slash',
    });
    new CfnOutput(this, 'LiveUrl', {
      value: this.streamingUrls.get('live')?.url ?? this.addStreamingUrls([]).liveUrl,
      description: 'Lambda Function URL of the live stream (/api/live/...); the dashboard serves it under its own /api/live/',
    });
    new CfnOutput(this, 'ExportUrl', {
      value: this.streamingUrls.get('export')?.url ?? this.addStreamingUrls([]).exportUrl,
      description: 'Lambda Function URL of the owner export (/api/sites/{hostname}/export, response streaming); the HTTP API does not serve it',
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
      new CfnOutput(this, 'TimestreamDatabase', { value: this.eventStore.database.ref });
      new CfnOutput(this, 'TimestreamTable', { value: this.eventStore.table.attrName });
    }
    new CfnOutput(this, 'AuthIssuer', { value: this.auth.environment.AUTH_ISSUER as string });
    if (this.auth.userPool && this.auth.userPoolClient) {
      new CfnOutput(this, 'UserPoolId', { value: this.auth.userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: this.auth.userPoolClient.userPoolClientId });
    }
  }

  /** The live stream's Function URL, its CORS open to the dashboard's origin (none without a dashboard). */
  /** The Function URLs of the live stream and the export, made once (CORS for `origins`), as the dashboard's configuration names them. */
  private addStreamingUrls(origins: readonly string[]): { liveUrl: string; exportUrl: string } {
    for (const group of ['live', 'export'] as const) {
      if (!this.streamingUrls.has(group)) this.streamingUrls.set(group, this.api.addStreamingUrl(group, origins));
    }
    return { liveUrl: (this.streamingUrls.get('live') as lambda.FunctionUrl).url, exportUrl: (this.streamingUrls.get('export') as lambda.FunctionUrl).url };
  }

  /**
   * `-c dashboard=false`: no CloudFront. With `-c dashboardOrigin=https://…` (where the operator
   * serves the built files, `/api/*` proxied to ApiUrl) Cognito calls back to that origin's /login,
   * and DashboardConfig is the `/dashboard/config.json` to serve there (README "Deploy to AWS").
   */
  private dashboardElsewhere(origin: string | undefined): void {
    const external = !this.auth.userPool;
    if (origin === undefined && !external) return;
    const config: DashboardConfig = { signIn: dashboardSignIn(this.auth, origin ?? ''), ...this.addStreamingUrls(origin === undefined ? [] : [origin]) };
    if (origin !== undefined) new CfnOutput(this, 'DashboardUrl', { value: origin, description: 'Where you serve the dashboard (context dashboardOrigin), /api/* proxied to ApiUrl' });
    new CfnOutput(this, 'DashboardConfig', { value: this.toJsonString(config), description: 'Serve this as /dashboard/config.json beside the dashboard files' });
  }
}

/**
 * `-c dashboard=false` leaves the CloudFront dashboard out (an account AWS
 * has not verified for CloudFront fails any deploy that creates a
 * distribution); `-c dashboardOrigin` then names where the operator serves it.
 */
function dashboardFromContext(scope: Construct): { dashboard: boolean; dashboardOrigin: string | undefined } {
  const dashboard = contextFlag(scope, 'dashboard', true);
  const dashboardOrigin = contextOrigin(scope, 'dashboardOrigin');
  if (dashboard && dashboardOrigin !== undefined) throw new Error('context dashboardOrigin goes with -c dashboard=false: the stack’s own dashboard is on its CloudFront origin');
  return { dashboard, dashboardOrigin };
}

/**
 * Parquet files on S3 (`-c eventStore=s3`, the default: no flag, no secret, no outside service,
 * billed per use; issue 44), `-c eventStore=clickhouse -c clickhouseUrl=https://… -c
 * clickhouseSecretArn=arn:…` (large sites, docs/scaling.md), or `-c eventStore=timestream`
 * (accounts that already have Timestream for LiveAnalytics). A deployment that names a
 * ClickHouse URL stays on ClickHouse without the flag: an upgrade never moves its store.
 */
function eventStoreFromContext(scope: Construct): EventStoreResource {
  const engine = contextString(scope, 'eventStore') ?? (contextString(scope, 'clickhouseUrl') ? 'clickhouse' : 's3');
  if (engine === 's3') return new S3EventStore(scope, 'EventStore');
  if (engine === 'timestream') return new Timestream(scope, 'EventStore');
  if (engine !== 'clickhouse') throw new Error('context eventStore must be s3, clickhouse or timestream');
  const url = contextString(scope, 'clickhouseUrl');
  const secretArn = contextString(scope, 'clickhouseSecretArn');
  if (!url || !secretArn) {
    throw new Error(
      'the event store is ClickHouse: pass -c clickhouseUrl=https://… -c clickhouseSecretArn=arn:… (a secret holding {"username", "password"}), ' +
        'or -c eventStore=timestream on an account that has Timestream for LiveAnalytics',
    );
  }
  const readerSecretArn = contextString(scope, 'clickhouseReaderSecretArn');
  if (!readerSecretArn) {
    throw new Error(
      'the public reports function reads ClickHouse as its own user: pass -c clickhouseReaderSecretArn=arn:… (a secret holding that user’s {"username", "password"}; the README lists its GRANTs)',
    );
  }
  const kmsKeyArn = contextString(scope, 'clickhouseSecretKmsKeyArn');
  if (kmsKeyArn !== undefined && !/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(kmsKeyArn)) {
    throw new Error('context clickhouseSecretKmsKeyArn must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), not an alias');
  }
  const database = contextString(scope, 'clickhouseDatabase');
  return new ClickHouse(scope, 'EventStore', {
    url,
    writerSecretArn: secretArn,
    readerSecretArn,
    ...(kmsKeyArn ? { secretKmsKeyArn: kmsKeyArn } : {}),
    ...(database ? { database } : {}),
  });
}
