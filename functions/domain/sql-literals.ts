/** Values written into SQL text, quoted or refused: every store's statements build on these. */

/**
 * A string literal: single quotes doubled (the only escape either dialect
 * needs; backslashes are plain characters). A NUL, which no literal may hold,
 * is spliced in as chr(0), so every string the domain accepts has a literal.
 */
export function sqlString(value: string): string {
  const quoted = (s: string) => `'${s.replaceAll("'", "''")}'`;
  if (!value.includes('\u0000')) return quoted(value);
  return `concat(${value.split('\u0000').map(quoted).join(', chr(0), ')})`;
}

/** A quoted identifier: double quotes doubled. */
export function sqlIdentifier(name: string): string {
  if (name === '' || name.includes('\u0000')) throw new RangeError('invalid SQL identifier');
  return `"${name.replaceAll('"', '""')}"`;
}

/** An integer literal; anything but a safe integer is refused rather than written. */
export function sqlInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${String(value)}`);
  return String(value);
}
