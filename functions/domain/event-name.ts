/**
 * Event names (spec part 6 rule 3), normalized alike where they are collected,
 * imported and named by a goal, a funnel step or a report: kept apart from the
 * collector's enrichment so the readers need none of its libraries.
 */
export const MAX_EVENT_NAME = 256;

/** Cut to 256 first, then every run of non-alphanumerics becomes `_`, edges trimmed. Empty means: store nothing. */
export function normalizeEventName(name: string): string {
  return name
    .slice(0, MAX_EVENT_NAME)
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}
