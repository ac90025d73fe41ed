/**
 * The form of a normalized hostname (the output of normalizeHostname), on its
 * own without IDNA so that every route bundle can check a path value cheaply.
 */
const MAX_HOSTNAME_CHARS = 253;
const MAX_LABEL_CHARS = 63;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
// WHATWG URL reads a name whose last label is decimal or 0x-hex as IPv4
// ("1.2.3.0x4"), so such names could never be served as a hostname.
const NUMERIC_TLD = /^(?:[0-9]+|0x[0-9a-f]*)$/;

/** True for an ASCII name in canonical form: at most 253 characters, two or more LDH labels, no numeric last label. */
export function isNormalizedHostname(name: string): boolean {
  if (name.length > MAX_HOSTNAME_CHARS) return false;
  const labels = name.split('.');
  if (labels.length < 2) return false;
  for (const label of labels) {
    if (label.length > MAX_LABEL_CHARS || !LABEL.test(label)) return false;
  }
  return !NUMERIC_TLD.test(labels[labels.length - 1] ?? '');
}
