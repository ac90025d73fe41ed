/**
 * What every product route group builds on AWS: the registry over the
 * entry's DynamoDB client, the configured issuer's ID-token verifier, and the
 * instance's caches of sites and management keys.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { JwtTokenVerifier } from '#adapters/jwt/jwt-token-verifier.ts';
import type { AuthServices } from '#http/auth.ts';
import { systemClock } from '#ports/clock.ts';
import { required, type Config } from '#platform/config.ts';
import { keyState, siteCaches } from '#platform/instance-state.ts';

export function authServices(config: Readonly<Config>, dynamo: DynamoDBClient): AuthServices {
  return {
    clock: systemClock,
    registry: new DynamoRegistry(dynamo, config.tableName),
    tokens: new JwtTokenVerifier(required(config, 'auth')),
    ...siteCaches(systemClock),
    ...keyState(systemClock),
  };
}
