/** Timestream keeps no crawler hits: it is frozen (DESIGN.md §1); every question answers 501. */
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { CrawlerHitStore } from '#ports/crawler-hits.ts';

const refuse = () => Promise.reject(new NotAvailableOnStoreError());

export const TIMESTREAM_CRAWLER_HITS: CrawlerHitStore = { saveCrawlerHits: refuse, crawlerRows: refuse, crawlerHours: refuse };
