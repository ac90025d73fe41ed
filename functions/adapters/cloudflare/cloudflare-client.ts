/**
 * The Cloudflare API over HTTP at a configurable base URL (CLOUDFLARE_API_URL,
 * https://api.cloudflare.com/client/v4 by default; tests point it at
 * test/support/fake-cloudflare.ts). REST for zones, GraphQL Analytics for
 * requests by user agent and path: each hour window is read whole when it
 * holds fewer groups than the page limit, else in halves down to a minute;
 * 429 answers are retried after Retry-After (else a doubling back-off) a few
 * times. Error texts name the status and Cloudflare's message, never the token.
 */
import { CloudflareError, type CloudflareClient, type CloudflareZone, type ZoneRequestGroup } from '#ports/cloudflare.ts';

export interface CloudflareOptions {
  baseUrl: string;
  /** Groups per GraphQL page (Cloudflare allows up to 10,000). */
  pageLimit?: number;
  /** Attempts of a rate-limited request. */
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const HOUR = 3_600_000;
const MIN_WINDOW = 60_000;
const ZONES_PER_PAGE = 50;
const MAX_MESSAGE = 200;

export const REQUESTS_QUERY = `query CrawlerHits($zoneTag: string, $start: Time!, $end: Time!, $limit: Int!) {
  viewer {
    zones(filter: { zoneTag: $zoneTag }) {
      httpRequestsAdaptiveGroups(limit: $limit, filter: { datetime_geq: $start, datetime_lt: $end }, orderBy: [count_DESC]) {
        count
        dimensions { datetimeHour userAgent clientRequestPath }
      }
    }
  }
}`;

type RestBody = { success?: boolean; errors?: { code?: number; message?: string }[]; result?: unknown; result_info?: { total_pages?: number } };
type GraphQlBody = {
  data?: { viewer?: { zones?: { httpRequestsAdaptiveGroups?: { count: number; dimensions: { datetimeHour: string; userAgent: string; clientRequestPath: string } }[] }[] } } | null;
  errors?: { message?: string }[] | null;
};

/** At most MAX_MESSAGE characters, the token never among them (an answer might echo it). */
const clip = (s: string, token = '') => (token.length > 0 ? s.replaceAll(token, '…') : s).slice(0, MAX_MESSAGE);
/** `Cloudflare returned <status>: <message>`, the form of every refusal Cloudflare answers. */
const statusError = (status: number, message: string, token: string) => new CloudflareError(clip(`Cloudflare returned ${status}: ${message}`, token));

export class HttpCloudflareClient implements CloudflareClient {
  private readonly baseUrl: string;
  private readonly pageLimit: number;
  private readonly attempts: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(options: CloudflareOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.pageLimit = options.pageLimit ?? 10_000;
    this.attempts = options.attempts ?? 4;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.fetch = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  /** One request, retried while rate limited; the parsed body and status. */
  private async call<T>(path: string, token: string, body?: unknown): Promise<{ status: number; body: T }> {
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(`${this.baseUrl}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (e) {
        throw new CloudflareError(clip(`Cloudflare error: ${(e as Error).message}`, token));
      }
      if (res.status === 429 && attempt < this.attempts) {
        const after = Number(res.headers.get('retry-after'));
        await this.sleep(Number.isFinite(after) && after > 0 ? after * 1000 : 500 * 2 ** (attempt - 1));
        continue;
      }
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        if (!res.ok) throw statusError(res.status, text, token);
        throw new CloudflareError('Cloudflare error: the answer was not JSON');
      }
      return { status: res.status, body: parsed as T };
    }
  }

  private async rest<T>(path: string, token: string): Promise<{ result: T; totalPages: number }> {
    const { status, body } = await this.call<RestBody>(path, token);
    if (status >= 400 || body.success === false) {
      const message = body.errors?.map((e) => e.message).filter(Boolean).join('; ') || 'request failed';
      throw statusError(status, message, token);
    }
    return { result: body.result as T, totalPages: body.result_info?.total_pages ?? 1 };
  }

  async listZones(token: string): Promise<CloudflareZone[]> {
    const zones: CloudflareZone[] = [];
    for (let page = 1, pages = 1; page <= pages; page++) {
      const { result, totalPages } = await this.rest<{ id: string; name: string }[]>(`/zones?per_page=${ZONES_PER_PAGE}&page=${page}`, token);
      zones.push(...result.map((z) => ({ id: z.id, name: z.name })));
      pages = totalPages;
    }
    return zones.sort((a, b) => a.name.localeCompare(b.name));
  }

  async checkZone(token: string, zoneId: string): Promise<CloudflareZone> {
    const { result } = await this.rest<{ id: string; name: string }>(`/zones/${zoneId}`, token);
    const now = Math.floor(Date.now() / HOUR) * HOUR;
    // The analytics read the sync will make, over one minute: a token without Analytics:Read fails here, not hourly.
    await this.window(token, zoneId, now - MIN_WINDOW, now, 1);
    return { id: result.id, name: result.name };
  }

  /** One GraphQL page of [from, to). */
  private async window(token: string, zoneId: string, from: number, to: number, limit: number): Promise<ZoneRequestGroup[]> {
    const variables = { zoneTag: zoneId, start: new Date(from).toISOString(), end: new Date(to).toISOString(), limit };
    const { status, body } = await this.call<GraphQlBody>('/graphql', token, { query: REQUESTS_QUERY, variables });
    const errors = body.errors ?? [];
    if (status >= 400 || errors.length > 0) {
      const message = errors.map((e) => e.message).filter(Boolean).join('; ') || 'request failed';
      throw statusError(status, message, token);
    }
    const zone = body.data?.viewer?.zones?.[0];
    if (!zone) throw new CloudflareError('Cloudflare returned no data for this zone');
    return (zone.httpRequestsAdaptiveGroups ?? []).map((g) => ({
      hour: Date.parse(g.dimensions.datetimeHour),
      userAgent: g.dimensions.userAgent,
      path: g.dimensions.clientRequestPath,
      count: g.count,
    }));
  }

  async zoneRequests(token: string, zoneId: string, from: number, to: number): Promise<ZoneRequestGroup[]> {
    const out: ZoneRequestGroup[] = [];
    const pending: [number, number][] = [];
    for (let h = from; h < to; h += HOUR) pending.push([h, Math.min(h + HOUR, to)]);
    for (let next = pending.shift(); next; next = pending.shift()) {
      const [a, b] = next;
      const groups = await this.window(token, zoneId, a, b, this.pageLimit);
      if (groups.length >= this.pageLimit && b - a > MIN_WINDOW) {
        // A full page may have left groups out: read the window again in halves.
        const mid = a + Math.max(MIN_WINDOW, Math.floor((b - a) / 2 / MIN_WINDOW) * MIN_WINDOW);
        pending.unshift([a, mid], [mid, b]);
        continue;
      }
      out.push(...groups);
    }
    return out;
  }
}
