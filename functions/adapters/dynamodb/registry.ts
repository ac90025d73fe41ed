/**
 * The registry over DynamoDB (and dynalite locally): one table, one adapter
 * per kind of record (sites.ts, claims.ts, management-keys.ts, salts.ts),
 * composed here into the Registry the services are given.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DailySalts, Registry, SiteRegistry } from '#ports/registry.ts';
import { DynamoSiteClaims } from './claims.ts';
import { itemTable, type ItemTable } from './item-table.ts';
import { DynamoManagementKeys } from './management-keys.ts';
import { DynamoDailySalts } from './salts.ts';
import { DynamoSites } from './sites.ts';
import { DynamoSiteApiKeys } from './site-api-keys.ts';
import { DynamoAlertRules } from './alert-rules.ts';
import { DynamoEmailReports } from './email-reports.ts';
import type { EmailReports } from '#ports/email-reports.ts';
import type { LiveStreams } from '#ports/live-streams.ts';
import { DynamoLiveStreams } from './live-streams.ts';
import { DynamoSiteRecords } from './site-records.ts';
import { DynamoShareLinks } from './share-links.ts';
import type { ShareLinks } from '#ports/share-links.ts';
import { DynamoSearchLinks } from './search-links.ts';
import type { SearchLinks } from '#ports/search-console.ts';
import type { CrawlerLinks } from '#ports/crawler-links.ts';
import { DynamoCrawlerLinks } from './crawler-links.ts';
import { keys } from './table.ts';
import type { FunnelRecord, GoalRecord, SiteRecords } from '#ports/goals.ts';

/** Sites and their daily salts: what the collector reads, built alone so its bundle leaves claims and keys out. */
export class DynamoSiteRegistry implements SiteRegistry, DailySalts {
  private readonly sites: DynamoSites;
  private readonly salts: DynamoDailySalts;

  constructor(protected readonly items: ItemTable) {
    this.sites = new DynamoSites(items);
    this.salts = new DynamoDailySalts(items);
  }

  /** Over one document client for the table. */
  static over(client: DynamoDBClient, table: string): DynamoSiteRegistry {
    return new DynamoSiteRegistry(itemTable(client, table));
  }

  readonly getSite: Registry['getSite'] = (...a) => this.sites.getSite(...a);
  readonly createSite: Registry['createSite'] = (...a) => this.sites.createSite(...a);
  readonly listSites: Registry['listSites'] = (...a) => this.sites.listSites(...a);
  readonly countSites: Registry['countSites'] = (...a) => this.sites.countSites(...a);
  readonly updateSite: Registry['updateSite'] = (...a) => this.sites.updateSite(...a);
  readonly markVerified: Registry['markVerified'] = (...a) => this.sites.markVerified(...a);
  readonly recordCheck: Registry['recordCheck'] = (...a) => this.sites.recordCheck(...a);
  readonly recordPurge: Registry['recordPurge'] = (...a) => this.sites.recordPurge(...a);
  readonly deleteSite: Registry['deleteSite'] = (...a) => this.sites.deleteSite(...a);
  readonly moveSite: Registry['moveSite'] = (...a) => this.sites.moveSite(...a);
  readonly recordSiteSeen: Registry['recordSiteSeen'] = (...a) => this.sites.recordSiteSeen(...a);

  readonly getOrCreateDailySalt: Registry['getOrCreateDailySalt'] = (...a) => this.salts.getOrCreateDailySalt(...a);
  readonly deleteSaltsBefore: Registry['deleteSaltsBefore'] = (...a) => this.salts.deleteSaltsBefore(...a);
}

/** Every record of the registry: the site registry, and claims, management keys, site API keys, alert rules, goals and funnels, e-mail digests, the live stream's tickets and slots, share links. */
export class DynamoRegistry extends DynamoSiteRegistry implements Registry {
  private readonly claims: DynamoSiteClaims;
  private readonly managementKeys: DynamoManagementKeys;
  private readonly siteApiKeys: DynamoSiteApiKeys;
  private readonly alertRules: DynamoAlertRules;
  readonly goals: SiteRecords<GoalRecord>;
  readonly funnels: SiteRecords<FunnelRecord>;
  readonly digests: EmailReports;
  readonly live: LiveStreams;
  readonly shares: ShareLinks;
  readonly searchConsole: SearchLinks;
  readonly crawlerLinks: CrawlerLinks;

  constructor(client: DynamoDBClient, table: string) {
    // One document client for all of them, as the table is one.
    super(itemTable(client, table));
    this.claims = new DynamoSiteClaims(this.items);
    this.managementKeys = new DynamoManagementKeys(this.items);
    this.siteApiKeys = new DynamoSiteApiKeys(this.items);
    this.alertRules = new DynamoAlertRules(this.items);
    this.goals = new DynamoSiteRecords<GoalRecord>(this.items, keys.goalPrefix, ['id', 'site', 'name', 'type', 'match', 'created_at']);
    this.funnels = new DynamoSiteRecords<FunnelRecord>(this.items, keys.funnelPrefix, ['id', 'site', 'name', 'steps', 'created_at']);
    this.digests = new DynamoEmailReports(this.items);
    this.live = new DynamoLiveStreams(this.items);
    this.shares = new DynamoShareLinks(this.items);
    this.searchConsole = new DynamoSearchLinks(this.items);
    this.crawlerLinks = new DynamoCrawlerLinks(this.items);
  }

  readonly startClaim: Registry['startClaim'] = (...a) => this.claims.startClaim(...a);
  readonly getClaim: Registry['getClaim'] = (...a) => this.claims.getClaim(...a);

  readonly createManagementKey: Registry['createManagementKey'] = (...a) => this.managementKeys.createManagementKey(...a);
  readonly findManagementKey: Registry['findManagementKey'] = (...a) => this.managementKeys.findManagementKey(...a);
  readonly listManagementKeys: Registry['listManagementKeys'] = (...a) => this.managementKeys.listManagementKeys(...a);
  readonly revokeManagementKey: Registry['revokeManagementKey'] = (...a) => this.managementKeys.revokeManagementKey(...a);
  readonly touchManagementKey: Registry['touchManagementKey'] = (...a) => this.managementKeys.touchManagementKey(...a);

  readonly createSiteApiKey: Registry['createSiteApiKey'] = (...a) => this.siteApiKeys.createSiteApiKey(...a);
  readonly findSiteApiKey: Registry['findSiteApiKey'] = (...a) => this.siteApiKeys.findSiteApiKey(...a);
  readonly listSiteApiKeys: Registry['listSiteApiKeys'] = (...a) => this.siteApiKeys.listSiteApiKeys(...a);
  readonly rotateSiteApiKey: Registry['rotateSiteApiKey'] = (...a) => this.siteApiKeys.rotateSiteApiKey(...a);
  readonly deleteSiteApiKey: Registry['deleteSiteApiKey'] = (...a) => this.siteApiKeys.deleteSiteApiKey(...a);
  readonly touchSiteApiKey: Registry['touchSiteApiKey'] = (...a) => this.siteApiKeys.touchSiteApiKey(...a);

  readonly createAlertRule: Registry['createAlertRule'] = (...a) => this.alertRules.createAlertRule(...a);
  readonly listAlertRules: Registry['listAlertRules'] = (...a) => this.alertRules.listAlertRules(...a);
  readonly getAlertRule: Registry['getAlertRule'] = (...a) => this.alertRules.getAlertRule(...a);
  readonly updateAlertRule: Registry['updateAlertRule'] = (...a) => this.alertRules.updateAlertRule(...a);
  readonly deleteAlertRule: Registry['deleteAlertRule'] = (...a) => this.alertRules.deleteAlertRule(...a);
  readonly listEnabledAlertRules: Registry['listEnabledAlertRules'] = (...a) => this.alertRules.listEnabledAlertRules(...a);
  readonly changeAlertState: Registry['changeAlertState'] = (...a) => this.alertRules.changeAlertState(...a);
  readonly recordAlertEvaluated: Registry['recordAlertEvaluated'] = (...a) => this.alertRules.recordAlertEvaluated(...a);
}
