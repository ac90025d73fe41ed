/** Lambda entry of the `reports` route group: the registry, the issuer and the event store's reader. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { TimestreamReportStore } from '#adapters/timestream/timestream-report-store.ts';
import { createReportsHandler } from '#http/handlers/reports.ts';
import { awsClient } from '#platform/aws-clients.ts';
import { authServices } from '#platform/aws-auth.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());
const { database, table } = required(config, 'timestream');

export const handler = createReportsHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  reports: new TimestreamReportStore(awsClient(TimestreamQueryClient), database, table),
});
