/**
 * Scheduled workers (DESIGN.md §1: EventBridge rules; locally, in-process
 * timers calling the same handlers). Salt rotation: shortly after each UTC
 * midnight, the previous days' visitor salts are deleted so yesterday's
 * hashes can never be recomputed (spec: the salt is deleted when the day ends).
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { NodeFunction } from './node-function.ts';

export interface SchedulesProps {
  table: dynamodb.ITable;
  /** AUTH_ISSUER, AUTH_AUDIENCE, AUTH_JWKS_URI: the workers build the same services as the HTTP handlers. */
  authEnvironment: Readonly<Record<string, string>>;
}

export class Schedules extends Construct {
  readonly rotateSalts: NodeFunction;
  readonly rotateSaltsRule: events.Rule;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.rotateSalts = new NodeFunction(this, 'RotateSaltsFunction', {
      entry: 'functions/workers/rotate-salts.ts',
      description: 'tinytrack worker: delete the visitor salts of past UTC days',
      timeout: Duration.seconds(60),
      environment: { TABLE_NAME: props.table.tableName, ...props.authEnvironment },
    });
    // Queries the salt items and deletes them; the next collector request creates today's.
    props.table.grantReadWriteData(this.rotateSalts);
    // 00:05 UTC: the new day's salt already exists (created on first use), so nothing waits on this.
    this.rotateSaltsRule = new events.Rule(this, 'RotateSaltsRule', {
      description: 'tinytrack: rotate visitor salts daily at 00:05 UTC',
      schedule: events.Schedule.cron({ minute: '5', hour: '0' }),
      targets: [new targets.LambdaFunction(this.rotateSalts, { retryAttempts: 4, maxEventAge: Duration.hours(2) })],
    });
  }
}
