/** Every group's handler by group name, for the local server (AWS runs one group per function). */
import type { RouteGroup } from '../routes.ts';
import type { GroupHandler } from '../api.ts';
import { handler as meta } from './meta.ts';
import { handler as account } from './account.ts';
import { handler as sites } from './sites.ts';
import { handler as collector } from './collector.ts';
import { handler as reports } from './reports.ts';
import { handler as imports } from './imports.ts';
import { handler as ingest } from './ingest.ts';
import { handler as alerts } from './alerts.ts';
import { handler as goals } from './goals.ts';
import { handler as digests } from './digests.ts';
import { handler as live } from './live.ts';
import { handler as search } from './search-console.ts';
import { handler as crawlers } from './crawlers.ts';
import { handler as data } from './site-data.ts';
import { handler as exportGroup } from './export.ts';

export const groupHandlers: Record<RouteGroup, GroupHandler> = { meta, account, sites, collector, reports, imports, ingest, alerts, goals, digests, live, search, crawlers, data, export: exportGroup };
