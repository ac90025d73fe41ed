/**
 * The identity provider whose ID tokens the API accepts: a Cognito user pool
 * and app client by default, or any OIDC issuer given as context
 * (`-c authIssuer=… -c authAudience=… [-c authJwksUri=…]`). Functions get
 * AUTH_ISSUER, AUTH_AUDIENCE and AUTH_JWKS_URI either way. Cognito's hosted
 * sign-in (its domain and the client's code flow) exists only where a
 * dashboard will call it back: the stack's own, or one the operator serves.
 */
import { Duration, Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { SESSION_TOKEN_TTL_SECONDS } from '#domain/dashboard-session.ts';
import { cognitoSignIn, type SignIn } from '#dashboard/config.ts';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { contextString } from './context.ts';
import { cognitoDomainPrefix } from './names.ts';

export interface ExternalIssuer {
  issuer: string;
  audience: string;
  jwksUri?: string;
}

export interface AuthProps {
  /** Unset: create a Cognito user pool. */
  external?: ExternalIssuer;
  /** The Cognito hosted sign-in's domain prefix (unique in the region); default `<stack>-<region>-<account id>` (lib/names.ts). */
  domainPrefix?: string;
  /**
   * Whether a dashboard signs owners in through Cognito's hosted sign-in
   * (default true). Without one (`-c dashboard=false` and no
   * `dashboardOrigin`) the pool gets no domain and the client no OAuth flow:
   * nothing could be called back.
   */
  hostedSignIn?: boolean;
  /**
   * The dashboard keeps sessions over refresh tokens (lib/dashboard-edge.ts): their validity is
   * DASHBOARD_SESSION_DAYS, and ID tokens last 15 minutes, as the local sessions' do (a tab
   * renews its token from the session). Unset: Cognito's defaults (30 days, one hour).
   */
  sessionDays?: number;
}

const jwksOf = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/jwks.json`;

export class Auth extends Construct {
  readonly userPool?: cognito.UserPool;
  readonly userPoolClient?: cognito.UserPoolClient;
  /** Cognito's hosted sign-in (authorization code with PKCE for the dashboard). */
  readonly userPoolDomain?: cognito.UserPoolDomain;
  /** The dashboard's origin, once the distribution exists: the app client's callback and sign-out URLs. */
  private dashboardOrigin?: string;
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
    const stack = Stack.of(this);
    const hosted = props.hostedSignIn ?? true;
    if (hosted) this.userPoolDomain = this.userPool.addDomain('Domain', { cognitoDomain: { domainPrefix: props.domainPrefix ?? cognitoDomainPrefix(this) } });
    const dashboardUrls = Lazy.list({ produce: () => (this.dashboardOrigin ? [`${this.dashboardOrigin}/login`] : []) });
    this.userPoolClient = this.userPool.addClient('WebClient', {
      // A browser app: no secret it could keep; PKCE protects the code instead.
      generateSecret: false,
      authFlows: { userSrp: true },
      preventUserExistenceErrors: true,
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      // Sign-out revokes the session's refresh token at /oauth2/revoke.
      enableTokenRevocation: true,
      ...(props.sessionDays !== undefined
        ? {
            refreshTokenValidity: Duration.days(props.sessionDays),
            idTokenValidity: Duration.seconds(SESSION_TOKEN_TTL_SECONDS),
            accessTokenValidity: Duration.seconds(SESSION_TOKEN_TTL_SECONDS),
          }
        : {}),
      ...(hosted
        ? {
            oAuth: {
              flows: { authorizationCodeGrant: true },
              scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
              callbackUrls: dashboardUrls,
              logoutUrls: dashboardUrls,
            },
          }
        : { disableOAuth: true }),
    });
    const issuer = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${this.userPool.userPoolId}`;
    this.environment = { AUTH_ISSUER: issuer, AUTH_AUDIENCE: this.userPoolClient.userPoolClientId, AUTH_JWKS_URI: jwksOf(issuer) };
  }

  useDashboardOrigin(origin: string): void {
    this.dashboardOrigin = origin;
  }
}

/**
 * How the dashboard at `origin` signs owners in; Cognito's client gets `origin`/login as its one
 * callback and sign-out URL. `session`: that origin serves the session routes (lib/dashboard-edge.ts).
 */
export function dashboardSignIn(auth: Auth, origin: string, session = false): SignIn {
  const env = auth.environment;
  if (!auth.userPoolDomain) return { type: 'oidc', issuer: env.AUTH_ISSUER as string, clientId: env.AUTH_AUDIENCE as string };
  auth.useDashboardOrigin(origin);
  return cognitoSignIn(env.AUTH_ISSUER as string, env.AUTH_AUDIENCE as string, auth.userPoolDomain.baseUrl(), session);
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
