/** Lambda entry of the `account` route group: the registry and the issuer. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createAccountHandler } from '#http/handlers/account.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());

export const handler = createAccountHandler(authServices(config, awsClient(DynamoDBClient)));
