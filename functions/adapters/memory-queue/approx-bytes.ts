/**
 * A message's rough size in memory, from its string lengths (UTF-16: two
 * bytes a character) plus a word for every other value and every property.
 * Computed once per message, so it only walks what a row or a chunk holds.
 */
export function approxBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + 2 * value.length;
  if (typeof value !== 'object' || value === null) return 8;
  let bytes = 16;
  if (Array.isArray(value)) {
    for (const item of value) bytes += approxBytes(item);
    return bytes;
  }
  for (const key in value) bytes += 8 + approxBytes((value as Record<string, unknown>)[key]);
  return bytes;
}
