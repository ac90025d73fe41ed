/**
 * A request's user agent as a crawler (issue 41): a named crawler of the
 * table (known-crawlers.ts), else another bot isbot recognises (named by the
 * product token that gives it away), else null: humans are not counted.
 */
import { isbot } from 'isbot';
import { KNOWN_CRAWLERS, type CrawlerCategory } from './known-crawlers.ts';

export interface Crawler {
  name: string;
  category: CrawlerCategory;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Each token as a word of its own: GPTBot in "GPTBot/1.2" but not in "NotGPTBotx". */
const MATCHERS = KNOWN_CRAWLERS.map((c) => ({ crawler: { name: c.name, category: c.category }, re: new RegExp(`(?<![\\w-])${escape(c.token)}(?![\\w-])`, 'i') }));

/** A product token naming a bot ("SomeBot/1.0", "foo-crawler"), the name of a bot the table lacks. */
const BOT_TOKEN = /([A-Za-z][\w.-]*(?:bot|crawler|spider|scraper|fetcher|agent)[\w.-]*)(?:\/[\w.]+)?/i;
const OTHER_BOT = 'Other bot';
const MAX_NAME = 64;

export function classifyUserAgent(ua: string): Crawler | null {
  for (const m of MATCHERS) if (m.re.test(ua)) return m.crawler;
  if (!isbot(ua)) return null;
  const token = BOT_TOKEN.exec(ua)?.[1];
  return { name: token ? token.slice(0, MAX_NAME) : OTHER_BOT, category: 'other' };
}
