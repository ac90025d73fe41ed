/**
 * The dashboard on AWS (DESIGN.md §1): its built files in a private S3 bucket
 * behind one CloudFront distribution, which also routes `/api/*` to the HTTP
 * API. Dashboard and API share that origin, so the API needs no CORS at all
 * (the spec keeps product responses free of CORS headers) and the ID token
 * never leaves the origin it was issued for. Pages (`/`, `/login`,
 * `/sites/…`, `/share/…`, `/embed/…`) are rewritten to index.html at the edge, as the
 * local server answers them; everything else under `/` is a hashed asset.
 * CloudFront's names are global to the account: each is derived from the
 * stack name and region (lib/names.ts), so two stacks never collide.
 *
 * `-c dashboard=false` leaves this construct out (accounts AWS has not yet
 * verified for CloudFront fail any deploy that creates a distribution); the
 * README says how to serve the same files elsewhere.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { dashboardCsp, type DashboardConfig } from '#dashboard/config.ts';
import { regionalName } from './names.ts';

export interface DashboardProps {
  /** The built files (functions/dashboard/build.ts writeDashboard). */
  assetsDir: string;
  api: HttpApi;
  /** The live stream's Function URL (lib/api.ts addStreamingUrl), made for the dashboard's origin: the page calls it there. */
  liveUrl: (origin: string) => string;
  /** How owners sign in: filled once the distribution's domain is known (Cognito's callback URL). */
  signIn: (origin: string) => DashboardConfig['signIn'];
}

/** The paths the page routes itself; the same list as the local server's (functions/local/dashboard-edge.ts). */
export const PAGE_REWRITE = `function handler(event) {
  var uri = event.request.uri;
  if (uri === '/' || uri === '/login' || uri === '/account' || /^\\/sites\\/[^/]+(\\/[a-z]+)?$/.test(uri) || /^\\/share\\/(link\\/)?[^/]+$/.test(uri) || /^\\/embed\\/[^/]+$/.test(uri)) event.request.uri = '/index.html';
  return event.request;
}`;

export class Dashboard extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** https://<distribution domain>: the dashboard's and the API's one origin. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Files', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Built files only, but emptying a bucket on delete takes one more function with s3:DeleteObject on it: kept instead.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // The policy only tells local sign-in from an OIDC issuer, which the origin does not change.
    const cspSignIn = props.signIn('https://origin.invalid');
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      responseHeadersPolicyName: regionalName(this, 'dashboard-headers', 128),
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: dashboardCsp(cspSignIn), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    const rewrite = new cloudfront.Function(this, 'PageRewrite', {
      functionName: regionalName(this, 'page-rewrite', 64),
      code: cloudfront.FunctionCode.fromInline(PAGE_REWRITE),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });
    const apiDomain = `${props.api.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'tinytrack dashboard and API',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, {
          originAccessControl: new cloudfront.S3OriginAccessControl(this, 'FilesAccess', { originAccessControlName: regionalName(this, 'dashboard-files', 64) }),
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: rewrite, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        // The product API as it is: no edge cache (owners' reads are no-store), every header and query through.
        '/api/*': {
          origin: new origins.HttpOrigin(apiDomain, { protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY }),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
      minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;
    const config: DashboardConfig = { signIn: props.signIn(this.origin), liveUrl: props.liveUrl(this.origin) };
    // Two uploads: hashed assets are cached for good, the page and its configuration are revalidated.
    // Neither prunes (each would delete the other's files); old hashed assets stay, a few KiB each.
    new deploy.BucketDeployment(this, 'Assets', {
      destinationBucket: this.bucket,
      sources: [deploy.Source.asset(props.assetsDir, { exclude: ['index.html'] })],
      cacheControl: [deploy.CacheControl.fromString('public, max-age=31536000, immutable')],
      prune: false,
      memoryLimit: 256,
    });
    new deploy.BucketDeployment(this, 'Page', {
      destinationBucket: this.bucket,
      sources: [deploy.Source.asset(props.assetsDir, { exclude: ['*', '!index.html'] }), deploy.Source.jsonData('dashboard/config.json', config)],
      cacheControl: [deploy.CacheControl.noCache()],
      prune: false,
      memoryLimit: 256,
      // No invalidation (it would need cloudfront:CreateInvalidation on every distribution): the
      // page is no-cache, so the edge keeps it for the cache policy's minimum of one second.
    });
  }
}
