/**
 * The import sources (spec part 2 "Import source", DESIGN.md §4 "Imports"):
 * one, the Simple Analytics export API. Its definition is what source
 * discovery returns; its label starts the credential-test error texts.
 */
export interface ConfigField {
  key: string;
  label: string;
  type: 'text' | 'password';
  required: boolean;
  placeholder?: string;
  help?: string;
}

export interface ImportSource {
  id: string;
  label: string;
  description: string;
  configFields: readonly ConfigField[];
}

export const SIMPLE_ANALYTICS: ImportSource = Object.freeze({
  id: 'simpleanalytics',
  label: 'SimpleAnalytics',
  description:
    'Copies historical page views and events from the Simple Analytics Export API (Business or Enterprise plan) into this site, month by month. ' +
    'Rows already imported are skipped, so overlapping imports are safe.',
  configFields: Object.freeze([
    {
      key: 'user_id',
      label: 'User ID',
      type: 'text',
      required: true,
      placeholder: 'sa_user_id_00000000-0000-0000-0000-000000000000',
      help: 'Shown next to your API keys in the Simple Analytics account settings.',
    },
    {
      key: 'api_key',
      label: 'API key',
      type: 'password',
      required: true,
      placeholder: 'sa_api_key_…',
      help: 'An API key from the Simple Analytics account settings. Kept encrypted while the import runs and never shown again.',
    },
    {
      key: 'source_hostname',
      label: 'Website in Simple Analytics',
      type: 'text',
      required: true,
      placeholder: 'example.com',
      help: 'The hostname as it is registered in Simple Analytics; it may differ from this site.',
    },
  ] satisfies ConfigField[]),
});

export const IMPORT_SOURCES: readonly ImportSource[] = Object.freeze([SIMPLE_ANALYTICS]);

export function findImportSource(id: unknown): ImportSource | null {
  return IMPORT_SOURCES.find((s) => s.id === id) ?? null;
}

/** What source discovery shows: the definition, never credentials. */
export function sourceView(source: ImportSource) {
  return { id: source.id, label: source.label, description: source.description, configFields: source.configFields.map((f) => ({ ...f })) };
}

/** The configuration without `password` fields: what a job stores in the clear and shows. */
export function publicConfig(source: ImportSource, config: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of source.configFields) {
    const value = config[field.key];
    if (field.type !== 'password' && value !== undefined) out[field.key] = value;
  }
  return out;
}

/** Error texts quote at most this much of the source's response (spec part 8). */
export const MAX_SOURCE_ERROR_BODY = 200;

/** Secrets that must not come back in an error text, even when the source echoes them. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

/**
 * At most 200 characters of what the source said, secrets redacted first: a
 * key straddling the cut would otherwise keep its head, which no longer
 * matches the whole key.
 */
function quote(text: string, secrets: readonly string[]): string {
  return redact(text, secrets).slice(0, MAX_SOURCE_ERROR_BODY);
}

/** The forms of a source's refusal of a credential test, as the API documents them. */
export const SOURCE_ERROR_FORMS = ['<source> returned <status>: …', '<source> returned malformed CSV: …', '<source> error: …'] as const;

/** `SimpleAnalytics returned <status>: ` + at most 200 characters of the response body. */
export function sourceStatusError(source: ImportSource, status: number, body: string, secrets: readonly string[] = []): string {
  return `${source.label} returned ${status}: ${quote(body, secrets)}`;
}

/** `SimpleAnalytics error: ` + the network error. */
export function sourceNetworkError(source: ImportSource, message: string, secrets: readonly string[] = []): string {
  return `${source.label} error: ${quote(message, secrets)}`;
}

/** `SimpleAnalytics returned malformed CSV: ` + the parser's complaint (which may quote the export). */
export function sourceFormatError(source: ImportSource, message: string, secrets: readonly string[] = []): string {
  return `${source.label} returned malformed CSV: ${quote(message, secrets)}`;
}
