/**
 * The identity provider whose ID tokens the API accepts: a Cognito user pool
 * and app client by default, or any OIDC issuer given as context
 * (`-c authIssuer=… -c authAudience=… [-c authJwksUri=…]`). Functions get
 * AUTH_ISSUER, AUTH_AUDIENCE and AUTH_JWKS_URI either way.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { contextString } from './context.ts';

export interface ExternalIssuer {
  issuer: string;
  audience: string;
  jwksUri?: string;
}

export interface AuthProps {
  /** Unset: create a Cognito user pool. */
  external?: ExternalIssuer;
}

const jwksOf = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/jwks.json`;

export class Auth extends Construct {
  readonly userPool?: cognito.UserPool;
  readonly userPoolClient?: cognito.UserPoolClient;
  /** AUTH_ISSUER, AUTH_AUDIENCE, AUTH_JWKS_URI for every function. */
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: AuthProps = {}) {
    super(scope, id);
    if (props.external) {
      const { issuer, audience, jwksUri } = props.external;
      this.environment = { AUTH_ISSUER: issuer, AUTH_AUDIENCE: audience, AUTH_JWKS_URI: jwksUri ?? jwksOf(issuer) };
      return;
    }
    this.userPool = new cognito.UserPool(this, 'UserPool', {
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      autoVerify: { email: true },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      // Accounts own sites and keys: losing the pool locks every owner out.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.userPoolClient = this.userPool.addClient('WebClient', {
      generateSecret: false,
      authFlows: { userSrp: true },
      preventUserExistenceErrors: true,
    });
    const stack = Stack.of(this);
    const issuer = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${this.userPool.userPoolId}`;
    this.environment = { AUTH_ISSUER: issuer, AUTH_AUDIENCE: this.userPoolClient.userPoolClientId, AUTH_JWKS_URI: jwksOf(issuer) };
  }
}

/** Reads the external issuer from context; throws when it is half configured. */
export function externalIssuerFromContext(scope: Construct): ExternalIssuer | undefined {
  const issuer = contextString(scope, 'authIssuer');
  const audience = contextString(scope, 'authAudience');
  const jwksUri = contextString(scope, 'authJwksUri');
  if (!issuer) {
    if (audience || jwksUri) throw new Error('context authAudience/authJwksUri need authIssuer');
    return undefined;
  }
  if (!/^https:\/\//.test(issuer)) throw new Error('context authIssuer must be an https URL');
  if (!audience) throw new Error('context authIssuer needs authAudience (the client id in ID tokens)');
  return { issuer, audience, ...(jwksUri ? { jwksUri } : {}) };
}
