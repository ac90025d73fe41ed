/**
 * The tinytrack stack: registry table, identity provider, event queue and the
 * HTTP API with one function per route group (DESIGN.md §1).
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { routes } from '#http/routes.ts';
import { Api } from './api.ts';
import { Auth, externalIssuerFromContext } from './auth.ts';
import { EventQueue } from './queues.ts';
import { Storage } from './storage.ts';

export interface TinytrackStackProps extends StackProps {
  /** The built, minified latest.js, inlined into the collector function. */
  trackerScript: string;
}

export class TinytrackStack extends Stack {
  readonly storage: Storage;
  readonly auth: Auth;
  readonly events: EventQueue;
  readonly api: Api;

  constructor(scope: Construct, id: string, props: TinytrackStackProps) {
    super(scope, id, props);
    this.storage = new Storage(this, 'Storage');
    const external = externalIssuerFromContext(this);
    this.auth = new Auth(this, 'Auth', external ? { external } : {});
    this.events = new EventQueue(this, 'Events');
    this.api = new Api(this, 'Api', {
      routes,
      table: this.storage.table,
      eventQueue: this.events.queue,
      authEnvironment: this.auth.environment,
      trackerScript: props.trackerScript,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint, description: 'Base URL of the API and the collector' });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'AuthIssuer', { value: this.auth.environment.AUTH_ISSUER as string });
    if (this.auth.userPool && this.auth.userPoolClient) {
      new CfnOutput(this, 'UserPoolId', { value: this.auth.userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: this.auth.userPoolClient.userPoolClientId });
    }
  }
}
