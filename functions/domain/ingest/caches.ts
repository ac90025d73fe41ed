/**
 * The collector's bounded caches of pure functions of what clients send: one
 * set per instance, built by the composition root. Beacons repeat a handful
 * of hostnames, user agents, zones and brand lists, and each reading (IDNA,
 * ua-parser-js with isbot, the zone table, the brands) costs far more than a
 * look-up. Each cache is bounded in entries and in key bytes, least recently
 * used out first (memo.ts): a flood of distinct values costs memory only up
 * to the bound, and each value is still answered.
 */
import { normalizeHostname, type NormalizedHostname } from '../hostname.ts';
import { memoize, type Memoized } from '../memo.ts';
import { browserFromBrands } from './client-hints.ts';
import { countryFromTimezone, readAgent, type Agent } from './enrich.ts';
import { utcDay } from '#domain/rows/days.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

export class CollectorCaches {
  /** Hostnames as beacons send them → normalized (or why not); at most 253-character values reach it. */
  readonly hostnames: Memoized<NormalizedHostname> = memoize((hostname) => normalizeHostname(hostname), 5_000, 4 * MiB);
  /**
   * User agents (payload `ua` or header) → browser, OS, device, bot. A site's
   * visitors of a day bring thousands of strings (each browser build, OS
   * version and device model its own), and a miss costs ~50 µs of CPU (ua-parser-js
   * and isbot): 20,000 entries, about 8 MiB for typical 150-character agents.
   */
  readonly agents: Memoized<Agent> = memoize(readAgent, 20_000, 16 * MiB);
  /** Time zones → country: a few hundred real ones. */
  readonly countries: Memoized<string | null> = memoize(countryFromTimezone, 1_000, 256 * KiB);
  /** Client-hint brand lists → the browser they name. */
  readonly brands: Memoized<string | null> = memoize(browserFromBrands, 2_000, 2 * MiB);
  private day = { number: NaN, text: '' };

  /** YYYY-MM-DD of a Unix ms time in UTC; the last day is kept (every beacon asks). */
  utcDay(ms: number): string {
    const number = Math.floor(ms / 86_400_000);
    if (number !== this.day.number) this.day = { number, text: utcDay(ms) };
    return this.day.text;
  }
}
