/**
 * The registry over DynamoDB (and dynalite locally): one table, one adapter
 * per kind of record (sites.ts, claims.ts, management-keys.ts, salts.ts),
 * composed here into the Registry the services are given.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Registry } from '#ports/registry.ts';
import { DynamoSiteClaims } from './claims.ts';
import { itemTable } from './item-table.ts';
import { DynamoManagementKeys } from './management-keys.ts';
import { DynamoDailySalts } from './salts.ts';
import { DynamoSites } from './sites.ts';

export class DynamoRegistry implements Registry {
  private readonly sites: DynamoSites;
  private readonly claims: DynamoSiteClaims;
  private readonly managementKeys: DynamoManagementKeys;
  private readonly salts: DynamoDailySalts;

  constructor(client: DynamoDBClient, table: string) {
    // One document client for all of them, as the table is one.
    const items = itemTable(client, table);
    this.sites = new DynamoSites(items);
    this.claims = new DynamoSiteClaims(items);
    this.managementKeys = new DynamoManagementKeys(items);
    this.salts = new DynamoDailySalts(items);
  }

  readonly getSite: Registry['getSite'] = (...a) => this.sites.getSite(...a);
  readonly createSite: Registry['createSite'] = (...a) => this.sites.createSite(...a);
  readonly listSites: Registry['listSites'] = (...a) => this.sites.listSites(...a);
  readonly countSites: Registry['countSites'] = (...a) => this.sites.countSites(...a);
  readonly updateSite: Registry['updateSite'] = (...a) => this.sites.updateSite(...a);
  readonly markVerified: Registry['markVerified'] = (...a) => this.sites.markVerified(...a);
  readonly recordCheck: Registry['recordCheck'] = (...a) => this.sites.recordCheck(...a);
  readonly deleteSite: Registry['deleteSite'] = (...a) => this.sites.deleteSite(...a);
  readonly moveSite: Registry['moveSite'] = (...a) => this.sites.moveSite(...a);
  readonly recordSiteSeen: Registry['recordSiteSeen'] = (...a) => this.sites.recordSiteSeen(...a);

  readonly startClaim: Registry['startClaim'] = (...a) => this.claims.startClaim(...a);
  readonly getClaim: Registry['getClaim'] = (...a) => this.claims.getClaim(...a);

  readonly createManagementKey: Registry['createManagementKey'] = (...a) => this.managementKeys.createManagementKey(...a);
  readonly findManagementKey: Registry['findManagementKey'] = (...a) => this.managementKeys.findManagementKey(...a);
  readonly listManagementKeys: Registry['listManagementKeys'] = (...a) => this.managementKeys.listManagementKeys(...a);
  readonly revokeManagementKey: Registry['revokeManagementKey'] = (...a) => this.managementKeys.revokeManagementKey(...a);
  readonly touchManagementKey: Registry['touchManagementKey'] = (...a) => this.managementKeys.touchManagementKey(...a);

  readonly getOrCreateDailySalt: Registry['getOrCreateDailySalt'] = (...a) => this.salts.getOrCreateDailySalt(...a);
  readonly deleteSaltsBefore: Registry['deleteSaltsBefore'] = (...a) => this.salts.deleteSaltsBefore(...a);
}
