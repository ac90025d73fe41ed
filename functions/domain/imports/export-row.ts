/**
 * One exported Simple Analytics data point → one event-store row (spec part 3
 * import rows, DESIGN.md §5): timestamp from `added_unix`, `imported` set, no
 * visitor hash (reports count `is_unique` instead), bots kept but flagged,
 * the source's `uuid` as the stable source id. Mapping works on the CSV's
 * value arrays through a mapper compiled once per header, the hot path of an
 * import.
 */
import { createHash } from 'node:crypto';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { ImportedKind } from '#ports/import-ledger.ts';
import { normalizeEventName } from '../event-name.ts';
import { deriveSource, isInternalReferrer, referrerHost, serializeMetadata } from '../ingest/enrich.ts';
import { browserName, osName } from '../ingest/tech-names.ts';
import type { ChunkType } from './planner.ts';

/** The export's columns this mapper reads, per chunk type (the request's `fields`). */
const COMMON_FIELDS = [
  'added_unix', 'uuid', 'path', 'query', 'is_robot', 'document_referrer',
  'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content',
  'viewport_width', 'viewport_height', 'screen_width', 'screen_height',
  'device_type', 'country_code', 'browser_name', 'os_name', 'lang_language',
] as const;

export const EXPORT_FIELDS: Readonly<Record<ChunkType, readonly string[]>> = {
  pageviews: [...COMMON_FIELDS, 'is_unique', 'duration_seconds', 'scrolled_percentage'],
  events: [...COMMON_FIELDS, 'datapoint'],
};

export type SkipReason = 'no_timestamp' | 'empty_event_name';
export type MappedRecord = { ok: true; row: EventRow } | { ok: false; reason: SkipReason };

export interface ImportRowContext {
  /** The tinytrack site the rows are stored under. */
  site: string;
  /** The registration that started the job (domain/registration.ts): the rows are its own. */
  registration: string;
  jobId: string;
  type: ChunkType;
  /** The site's name in Simple Analytics: its own pages are internal referrers too. */
  sourceHostname: string;
}

const ROW_ID_PREFIX = 'import:';

/**
 * The stored row's id names the job that imported it: a chunk processed again
 * after a crash recognises its own rows (counted as imported, not skipped),
 * while other jobs' rows are skipped.
 */
export const importedRowId = (jobId: string, sourceId: string): string => `${ROW_ID_PREFIX}${jobId}:${sourceId}`;

/** The job id inside an imported row's id, or null for any other id. */
export function importJobOfRowId(id: string): string | null {
  if (!id.startsWith(ROW_ID_PREFIX)) return null;
  const end = id.indexOf(':', ROW_ID_PREFIX.length);
  return end === -1 ? null : id.slice(ROW_ID_PREFIX.length, end);
}

const TRUE = new Set(['true', '1', 't', 'yes']);
const flag = (v: string): boolean => TRUE.has(v.trim().toLowerCase());
const str = (v: string): string | null => (v === '' ? null : v);

/** A whole number within [0, max], else null. */
function bounded(v: string, max: number): number | null {
  if (v === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) return null;
  return Math.min(Math.round(n), max);
}

/** `added_unix` is in seconds; a 13-digit value is taken as milliseconds already. */
function timestampMs(unix: string, iso: string): number | null {
  const n = unix === '' ? NaN : Number(unix);
  if (Number.isFinite(n) && n > 0) return Math.round(n < 1e11 ? n * 1000 : n);
  const parsed = iso === '' ? NaN : Date.parse(iso);
  return Number.isFinite(parsed) ? parsed : null;
}

const DEVICES = new Set(['desktop', 'mobile', 'tablet']);
const device = (v: string): string | null => {
  const d = v.trim().toLowerCase();
  return DEVICES.has(d) ? d : null;
};
const country = (v: string): string | null => (/^[A-Za-z]{2}$/.test(v.trim()) ? v.trim().toUpperCase() : null);

/** `metadata.<key>_<text|int|bool|date>`: the suffix says how to read the value and is dropped from the key. */
const METADATA_SUFFIX = /_(text|int|bool|date)$/;

function metadataReader(columns: readonly string[]): ((values: readonly string[]) => string | null) | null {
  const fields = columns
    .map((name, i) => ({ name: name.trim(), i }))
    .filter((c) => c.name.startsWith('metadata.') && c.name.length > 'metadata.'.length)
    .map(({ name, i }) => {
      const raw = name.slice('metadata.'.length);
      const kind = METADATA_SUFFIX.exec(raw)?.[1] ?? 'text';
      return { key: raw.replace(METADATA_SUFFIX, '') || raw, kind, i };
    });
  if (fields.length === 0) return null;
  return (values) => {
    let meta: Record<string, string | number | boolean> | null = null;
    for (const f of fields) {
      const v = values[f.i] ?? '';
      if (v === '') continue;
      const n = f.kind === 'int' ? Number(v) : NaN;
      const value = f.kind === 'bool' ? flag(v) : f.kind === 'int' && Number.isFinite(n) ? n : v;
      (meta ??= {})[f.key] = value;
    }
    return serializeMetadata(meta);
  };
}

/** A source id for a row without `uuid`: the same exported values always give the same id. */
const contentId = (values: readonly string[]): string => `sha256:${createHash('sha256').update(values.join('\u0000')).digest('hex').slice(0, 32)}`;

/** The export's columns the mapping reads. */
const EXPORT_COLUMNS = [
  'added_unix', 'added_iso', 'uuid', 'path', 'query', 'is_unique', 'is_robot', 'document_referrer', 'utm_source', 'utm_medium', 'utm_campaign',
  'utm_term', 'utm_content', 'duration_seconds', 'scrolled_percentage', 'viewport_width', 'viewport_height', 'screen_width', 'screen_height',
  'device_type', 'country_code', 'browser_name', 'os_name', 'lang_language', 'datapoint',
] as const;
type ExportColumn = (typeof EXPORT_COLUMNS)[number];

/** The kind of row an export's records become. */
export const importedKind = (type: ChunkType): ImportedKind => (type === 'pageviews' ? 'pageview' : 'event');

/** Compiles the mapping for one CSV header; unknown columns are ignored, missing ones read as empty. */
export function createRecordMapper(columns: readonly string[], ctx: ImportRowContext): (values: readonly string[]) => MappedRecord {
  const index = new Map(columns.map((name, i) => [name.trim(), i]));
  const col = (name: string) => {
    const i = index.get(name);
    return i === undefined ? () => '' : (values: readonly string[]) => values[i] ?? '';
  };
  const c = Object.fromEntries(EXPORT_COLUMNS.map((name) => [name, col(name)])) as Record<ExportColumn, (values: readonly string[]) => string>;
  const metadata = metadataReader(columns);
  const pageviews = ctx.type === 'pageviews';

  return (v) => {
    const ts = timestampMs(c.added_unix(v), c.added_iso(v));
    if (ts === null) return { ok: false, reason: 'no_timestamp' };
    let event: string | null = null;
    if (!pageviews) {
      event = normalizeEventName(c.datapoint(v));
      if (!event) return { ok: false, reason: 'empty_event_name' };
    }
    const sourceId = c.uuid(v).trim() || contentId(v);
    const referrer = str(c.document_referrer(v));
    const refHost = referrerHost(referrer);
    const internal = isInternalReferrer(refHost, ctx.site) || isInternalReferrer(refHost, ctx.sourceHostname);
    const utmSource = str(c.utm_source(v));
    return {
      ok: true,
      row: {
        site: ctx.site,
        registration: ctx.registration,
        ts,
        kind: importedKind(ctx.type),
        id: importedRowId(ctx.jobId, sourceId),
        original_id: null,
        event,
        visitor: null,
        unique: pageviews ? flag(c.is_unique(v)) : null,
        page_id: null,
        session_id: null,
        path: str(c.path(v)) ?? '/',
        query: str(c.query(v)),
        referrer,
        referrer_host: internal ? null : refHost,
        utm_source: utmSource,
        utm_medium: str(c.utm_medium(v)),
        utm_campaign: str(c.utm_campaign(v)),
        utm_term: str(c.utm_term(v)),
        utm_content: str(c.utm_content(v)),
        source: deriveSource({ utm_source: utmSource, campaign_source: null, campaign_ref: null }, internal ? null : refHost, ctx.site),
        country: country(c.country_code(v)),
        browser: browserName(c.browser_name(v)),
        os: osName(c.os_name(v)),
        device: device(c.device_type(v)),
        language: str(c.lang_language(v)),
        viewport_width: bounded(c.viewport_width(v), 100_000),
        viewport_height: bounded(c.viewport_height(v), 100_000),
        screen_width: bounded(c.screen_width(v), 100_000),
        screen_height: bounded(c.screen_height(v), 100_000),
        duration: pageviews ? bounded(c.duration_seconds(v), 86_400) : null,
        scrolled: pageviews ? bounded(c.scrolled_percentage(v), 100) : null,
        bot: flag(c.is_robot(v)),
        metadata: metadata ? metadata(v) : null,
        https: null,
        imported: true,
        source_id: sourceId,
      },
    };
  };
}
