/**
 * The dashboard on AWS (DESIGN.md §1): its built files in a private S3 bucket
 * behind one CloudFront distribution, which also routes `/api/*` to the HTTP
 * API. Dashboard and API share that origin, so the API needs no CORS at all
 * (the spec keeps product responses free of CORS headers) and the ID token
 * never leaves the origin it was issued for. Pages (`/`, `/login`,
 * `/sites/…`, `/share/…`) are rewritten to index.html at the edge, as the
 * local server answers them; the built files are under `/dashboard/`; any
 * other path gets the page's "not found" with status 404 (a browser) or the
 * API's JSON 404. The embed page (`/embed/…`) and the session routes
 * (`/dashboard/login|session|logout`) go to the API (lib/dashboard-edge.ts).
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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SESSION_PATHS } from '#domain/dashboard-session.ts';
import { NotFoundError } from '#domain/errors.ts';
import { regionalName } from './names.ts';

export interface DashboardProps {
  /** The built files (functions/dashboard/build.ts writeDashboard). */
  assetsDir: string;
  api: HttpApi;
  /** The live stream's and the export's Function URLs (lib/api.ts addStreamingUrl), made for the dashboard's origin: the page calls them there. */
  streamingUrls: (origin: string) => Pick<DashboardConfig, 'liveUrl' | 'exportUrl'>;
  /** How owners sign in: filled once the distribution's domain is known (Cognito's callback URL). */
  signIn: (origin: string) => DashboardConfig['signIn'];
  /** The session routes exist on the API (lib/dashboard-edge.ts: Cognito's hosted sign-in): CloudFront sends them there. */
  sessionRoutes: boolean;
}

/** The embed page's paths, answered by the API (lib/dashboard-edge.ts) with the site's `frame-ancestors`. */
export const EMBED_PATTERNS = ['/embed/*'] as const;

/** The S3 keys of the "not found" answers: the page (a copy of index.html) for browsers, the API's JSON 404 for other clients. */
export const NOT_FOUND_PAGE = '/dashboard/not-found.html';
export const NOT_FOUND_JSON = '/dashboard/not-found.json';
/** User metadata on those two objects (S3 answers it as `x-amz-meta-tt-status`): the status the viewer gets instead of S3's 200. */
export const STATUS_METADATA = 'tt-status';

/**
 * Viewer request, default (S3) behavior: the paths the page routes itself become index.html (the
 * same list as the local server's, functions/local/dashboard-edge.ts); the built files under
 * /dashboard/ pass; any other path is the "not found" page for a browser (GET asking for HTML),
 * the API's JSON 404 for anything else, as the local server answers.
 */
export const PAGE_REWRITE = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '/login' || uri === '/account' || /^\\/sites\\/[^/]+(\\/[a-z]+)?$/.test(uri) || /^\\/share\\/(link\\/)?[^/]+$/.test(uri)) request.uri = '/index.html';
  else if (uri.indexOf('/dashboard/') !== 0) {
    var accept = request.headers.accept ? request.headers.accept.value : '';
    request.uri = request.method === 'GET' && accept.indexOf('text/html') !== -1 ? '${NOT_FOUND_PAGE}' : '${NOT_FOUND_JSON}';
  }
  return request;
}`;

/** Viewer response, default behavior: an object stored with a status in its metadata (the "not found" answers) is answered with that status. */
export const STATUS_FROM_METADATA = `function handler(event) {
  var response = event.response;
  var status = response.headers['x-amz-meta-${STATUS_METADATA}'];
  if (status) {
    response.statusCode = parseInt(status.value, 10);
    response.statusDescription = 'Not Found';
    delete response.headers['x-amz-meta-${STATUS_METADATA}'];
  }
  return response;
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
    const statusFromMetadata = new cloudfront.Function(this, 'NotFoundStatus', {
      functionName: regionalName(this, 'not-found-status', 64),
      code: cloudfront.FunctionCode.fromInline(STATUS_FROM_METADATA),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });
    const apiDomain = `${props.api.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`;
    const apiOrigin = new origins.HttpOrigin(apiDomain, { protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY });
    // The product API as it is: no edge cache (owners' reads are no-store), every header, cookie and query through.
    const toApi = {
      origin: apiOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    // The dashboard's answers the API gives (lib/dashboard-edge.ts): the function sets the page's CSP (the embed
    // page's names the site's framers), so this policy adds the rest, and no X-Frame-Options.
    const edgeHeaders = new cloudfront.ResponseHeadersPolicy(this, 'EdgeHeaders', {
      responseHeadersPolicyName: regionalName(this, 'dashboard-edge-headers', 128),
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    const edgeBehaviors: Record<string, cloudfront.BehaviorOptions> = Object.fromEntries(
      [...EMBED_PATTERNS, ...(props.sessionRoutes ? Object.values(SESSION_PATHS) : [])].map((pattern) => [pattern, { ...toApi, responseHeadersPolicy: edgeHeaders }]),
    );
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'tinytrack dashboard and API',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, {
          originAccessControl: new cloudfront.S3OriginAccessControl(this, 'FilesAccess', { originAccessControlName: regionalName(this, 'dashboard-files', 64) }),
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [
          { function: rewrite, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
          { function: statusFromMetadata, eventType: cloudfront.FunctionEventType.VIEWER_RESPONSE },
        ],
      },
      additionalBehaviors: { '/api/*': toApi, ...edgeBehaviors },
      minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;
    const config: DashboardConfig = { signIn: props.signIn(this.origin), ...props.streamingUrls(this.origin) };
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
    // The "not found" answers, each with its status in its metadata (STATUS_FROM_METADATA answers it).
    new deploy.BucketDeployment(this, 'NotFound', {
      destinationBucket: this.bucket,
      sources: [
        deploy.Source.data(NOT_FOUND_PAGE.slice(1), readFileSync(join(props.assetsDir, 'index.html'), 'utf8')),
        deploy.Source.data(NOT_FOUND_JSON.slice(1), JSON.stringify({ error: NotFoundError.text })),
      ],
      metadata: { [STATUS_METADATA]: '404' },
      cacheControl: [deploy.CacheControl.noCache()],
      prune: false,
      memoryLimit: 256,
    });
  }
}
