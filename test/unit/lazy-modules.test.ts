/**
 * The IDNA tables and the HTML parser load on first use, not at start: an
 * ASCII hostname (nearly every beacon) never loads tr46, and nothing loads
 * htmlparser2 before a page is scanned. A fresh process, so no other test has
 * loaded them already.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
import { createRequire } from 'node:module';
const cache = createRequire(process.cwd() + '/').cache;
const loaded = () => ['tr46', 'htmlparser2'].filter((name) => Object.keys(cache).some((file) => file.includes('/node_modules/' + name + '/')));
const { normalizeHostname } = await import('#domain/hostname.ts');
const { scanPage } = await import('#domain/page-scan.ts');
const steps = { imported: loaded() };
normalizeHostname('www.example.com');
steps.ascii = loaded();
normalizeHostname('bücher.example');
steps.unicode = loaded();
scanPage('<html></html>', { pageUrl: 'https://bücher.example/', siteHosts: ['xn--bcher-kva.example'], publicOrigins: ['https://t.example'], verifyToken: 'x' });
steps.scanned = loaded();
process.stdout.write(JSON.stringify(steps));
`;

describe('lazily loaded packages', () => {
  it('loads tr46 with the first non-ASCII hostname and htmlparser2 with the first page scan', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ imported: [], ascii: [], unicode: ['tr46'], scanned: ['tr46', 'htmlparser2'] });
  });
});
