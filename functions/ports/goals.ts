/**
 * Port: a site's goals and funnels (issue 37), stored under their site so a
 * site delete or the move that ends a registration removes them.
 */
export type GoalType = 'page' | 'event';

/** What a goal or a funnel step matches: a page path (exact, or with `*` wildcards) or a normalized event name. */
export interface GoalMatch {
  type: GoalType;
  match: string;
}

export interface GoalRecord extends GoalMatch {
  id: string;
  site: string;
  name: string;
  created_at: string;
}

export interface FunnelRecord {
  id: string;
  site: string;
  name: string;
  /** 2 to 6, in order. */
  steps: GoalMatch[];
  created_at: string;
}

/** One kind of record under a site: created within a per-site limit, listed, read, changed and deleted by id. */
export interface SiteRecords<T extends { id: string; site: string }> {
  /** False when the site already has `maxPerSite` of them. */
  create(record: T, maxPerSite: number): Promise<boolean>;
  list(site: string): Promise<T[]>;
  get(site: string, id: string): Promise<T | null>;
  /** The changed record, or null when there is none with that id. */
  update(site: string, id: string, patch: Partial<Omit<T, 'id' | 'site' | 'created_at'>>): Promise<T | null>;
  delete(site: string, id: string): Promise<boolean>;
}

export interface Goals {
  readonly goals: SiteRecords<GoalRecord>;
  readonly funnels: SiteRecords<FunnelRecord>;
}
