/** Mail recipients as requests give them (alert rules, e-mail digests): 1 to MAX_RECIPIENTS plausible addresses. */
export const MAX_RECIPIENTS = 10;
export const RECIPIENTS_ERROR = `recipients must be 1 to ${MAX_RECIPIENTS} e-mail addresses`;

/** A plausible single address: no spaces, one @, a dot in the domain; the relay judges the rest. */
const EMAIL = /^[^\s@<>()",;]+@[^\s@<>()",;]+\.[^\s@<>()",;]+$/;

/** The addresses, trimmed and each once, or null when the value is not 1 to MAX_RECIPIENTS of them. */
export function parseRecipients(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_RECIPIENTS) return null;
  if (!value.every((x) => typeof x === 'string' && EMAIL.test(x.trim()))) return null;
  return [...new Set(value.map((x: string) => x.trim()))];
}
