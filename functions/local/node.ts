/** Starts and stops the whole single-node service; used by `npm start` and the integration tests. */
import type { AddressInfo } from 'node:net';
import type { Config } from '#platform/config.ts';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '#local/adapters.ts';
import { withInstanceState, type Services } from '#platform/services.ts';
import { groupHandlers } from '#http/handlers/index.ts';
import { createLocalServer } from './http-server.ts';
import { assertDataDirFree } from './startup.ts';
import { removeServerUrl, writeServerUrl } from './data-dir.ts';
import { siteRead } from '#domain/site-lookup.ts';
import { scheduleSaltRotation } from '#workers/rotate-salts.ts';
import { createAlertChecker } from '#workers/alert-checks.ts';
import { createDigestSender } from '#workers/digest-sends.ts';
import { digestMails } from '#reports/digest-reports.ts';
import { log } from '#platform/log.ts';
import { TimerScheduler } from './scheduler.ts';
import { retentionPurgeJob } from '#workers/retention-purge.ts';
import { rollupWarmJob } from '#workers/rollup-warm.ts';
import { createSearchSyncer, SEARCH_SYNC_JOB } from '#workers/search-console-sync.ts';
import { crawlerSyncJob } from '#workers/crawler-sync.ts';
import { buildDashboard, type BuiltDashboard } from '#dashboard/build.ts';
import { cognitoSignIn, type SignIn } from '#dashboard/config.ts';
import { OidcTokenClient } from '#adapters/oidc/oidc-token-client.ts';
import { oidcSessionRoutes } from '#http/session-routes.ts';
import { DynamoDashboardSessions, DynamoLoginLinks } from '#adapters/dynamodb/login-links.ts';
import { itemTable } from '#adapters/dynamodb/item-table.ts';
import { dashboardEdge, type DashboardEdge } from './dashboard-edge.ts';
import { embedOriginsOf } from '#http/share-access.ts';
import { loadIssuerKey, mintIdToken } from './local-issuer.ts';

// The build is the same for every node of a process (tests start many): made once.
let dashboardBuild: Promise<BuiltDashboard> | undefined;

/**
 * The dashboard for this node: local sign-in links unless AUTH_ISSUER names another issuer; with
 * AUTH_DOMAIN_URL too (Cognito's hosted sign-in), sessions over its refresh tokens as on AWS.
 */
function localDashboard(config: Readonly<Config>, runtime: LocalRuntime, built: BuiltDashboard, services: Services): DashboardEdge {
  const { auth, authDomainUrl: domain } = config;
  const secureCookie = config.publicUrls?.[0]?.startsWith('https:') ?? false;
  const signIn: SignIn = !auth ? { type: 'local' } : domain ? cognitoSignIn(auth.issuer, auth.audience, domain, true) : { type: 'oidc', issuer: auth.issuer, clientId: auth.audience };
  const key = auth ? null : loadIssuerKey(config.dataDir);
  const oidcSession =
    auth && domain
      ? oidcSessionRoutes({
          tokens: new OidcTokenClient({ tokenUrl: `${domain}/oauth2/token`, revokeUrl: `${domain}/oauth2/revoke`, clientId: auth.audience }),
          sessionDays: config.dashboardSessionDays,
          redirectUri: config.dashboardOrigin === null ? null : `${config.dashboardOrigin}/login`,
          secureCookie,
        })
      : null;
  return dashboardEdge({
    built,
    config: { signIn },
    oidcSession,
    localSignIn: key
      ? {
          links: new DynamoLoginLinks(itemTable(runtime.store, config.tableName)),
          sessions: new DynamoDashboardSessions(itemTable(runtime.store, config.tableName)),
          mint: (sub, ttlSeconds) => mintIdToken(key, sub, { ttlSeconds }),
          sessionDays: config.dashboardSessionDays,
          secureCookie,
        }
      : null,
    clock: runtime.adapters.clock,
    embedOrigins: (slug) => embedOriginsOf(services, slug),
  });
}

export interface LocalNode {
  url: string;
  services: Services;
  runtime: LocalRuntime;
  /** The scheduled jobs of this node (the alert checks every minute, the e-mail digests every quarter hour). */
  scheduler: TimerScheduler;
  stop(): Promise<void>;
}

export async function startLocalNode(config: Readonly<Config>, options: LocalRuntimeOptions = {}): Promise<LocalNode> {
  await assertDataDirFree(config.dataDir);
  const built = await (dashboardBuild ??= buildDashboard());
  const runtime = await startLocalRuntime(config, options);
  const services = withInstanceState(runtime.adapters, { collectorInProcess: true });
  services.heldRows = await runtime.holdRows(services.collectorDrops);
  runtime.onSiteChanged(async (hostname) => {
    await siteRead(services, hostname);
    // A check that failed before the change no longer holds back the next one.
    services.verifyAttempts.delete(hostname);
  });
  const stopRotation = scheduleSaltRotation(services.registry, () => services.clock.now(), options.timers);
  // Node's timers, not the salt rotation's (tests fire those by hand); the service clock still times each run.
  const scheduler = new TimerScheduler(services.clock, log);
  scheduler.add({ name: 'alert-checks', everyMinutes: 1, run: createAlertChecker({ ...services, log }) });
  if (services.searchStats && services.google.configured) {
    scheduler.add({ ...SEARCH_SYNC_JOB, run: createSearchSyncer({ ...services, google: services.google, stats: services.searchStats, log }) });
  }
  // Links point at this server, whose address is known once it listens.
  const digestServices = { ...services, origin: () => services.publicOrigins[0] ?? null };
  scheduler.add({ name: 'digest-sends', everyMinutes: 15, run: createDigestSender({ ...services, log, mails: (target, at) => digestMails(digestServices, target, at) }) });
  // Crawler hits (issue 41): every link read from its Cloudflare zone each hour.
  scheduler.add(crawlerSyncJob({ ...services, crawlerLinks: services.registry.crawlerLinks }));
  // Retention (issue 42): each site's rows older than its limit, daily at 00:00 UTC.
  if (services.siteData) scheduler.add(retentionPurgeJob({ ...services, siteData: services.siteData, log, retentionMaxMonths: services.config.retentionMaxMonths }));
  // Rollups (issue 43): each site's days sealed since the last run, daily at 00:00 UTC, so no report builds them.
  if (services.siteData) scheduler.add(rollupWarmJob({ ...services, siteData: services.siteData, log }));
  // The S3 store (S3_EVENTS_URL, issue 44): each site-day's small files merged hourly, as EventBridge runs it on AWS.
  const compactEvents = runtime.compactEvents;
  if (compactEvents) scheduler.add({ name: 'event-compaction', everyMinutes: 60, run: async () => void (await compactEvents()) });
  const server = createLocalServer({ groups: groupHandlers, trustedProxies: config.trustedProxies, services, dashboard: localDashboard(config, runtime, built, services) });
  try {
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(config.port, config.host, () => ok());
    });
  } catch (e) {
    // The port is taken (or not ours): release the stores so the caller can report it and exit.
    await stopRotation();
    await scheduler.stop();
    await runtime.close();
    throw e;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  // PUBLIC_URL's default names this server, whose port (PORT=0) is known only now.
  if (config.publicUrls === null) services.publicOrigins = [url];
  // Where `npm run admin -- login-link` sends owners: this server's dashboard.
  writeServerUrl(config.dataDir, services.publicOrigins[0] ?? url);
  return {
    url,
    services,
    runtime,
    scheduler,
    stop: async () => {
      // Stop taking requests, let those in flight finish, then drain and close the stores.
      removeServerUrl(config.dataDir);
      const rotationStopped = stopRotation();
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      server.endStreams();
      server.closeIdleConnections();
      await closed;
      await rotationStopped;
      await scheduler.stop();
      await runtime.close();
      services.collectorDrops.flush();
    },
  };
}
