/** The local outbox (DATA_DIR/outbox/) as tests read it back: its messages and their subjects. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The outbox's messages, oldest first, quoted-printable undone so bodies read as written. */
export function readOutbox(dataDir: string): string[] {
  const dir = join(dataDir, 'outbox');
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.eml')).sort();
  } catch {
    return [];
  }
  return names.map((n) => {
    const raw = readFileSync(join(dir, n), 'utf8');
    const end = raw.indexOf('\n\n');
    const body = raw.slice(end).replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return raw.slice(0, end) + body;
  });
}

/** A message's Subject, its folded encoded words (RFC 2047, Q encoding) decoded. */
export function subjectOf(mail: string): string {
  const folded = /^Subject: (.*(?:\n .*)*)/m.exec(mail)?.[1] ?? '';
  return folded
    // Whitespace between encoded words is not text (RFC 2047 §6.2).
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/\n /g, ' ')
    .replace(/=\?UTF-8\?Q\?([^?]*)\?=/g, (_, q: string) => q.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/g, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))));
}
