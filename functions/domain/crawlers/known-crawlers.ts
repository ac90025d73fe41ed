/**
 * The one table of named crawlers and their category (issue 41). The AI
 * agents follow the ai.robots.txt project's list
 * (https://github.com/ai-robots-txt/ai.robots.txt, robots.json: its
 * "AI Data Scraper", "AI Assistant", "AI Search Crawler" and "AI Agent"
 * entries); the search engines are the crawlers each engine documents for
 * its index. A token matches when the user agent contains it as a word (any
 * case); the first match wins, so a more specific token (Google-Extended,
 * Applebot-Extended, OAI-SearchBot) is listed before its shorter relative.
 * Other bots (isbot's list, the shared detector of the collector) count as
 * `other`, named by their product token (classify.ts).
 */
export type CrawlerCategory = 'ai' | 'search' | 'other';

export interface KnownCrawler {
  /** The name reports show. */
  name: string;
  /** The user-agent token that identifies it (matched case-insensitively as a word). */
  token: string;
  category: CrawlerCategory;
}

const ai = (name: string, token = name): KnownCrawler => ({ name, token, category: 'ai' });
const search = (name: string, token = name): KnownCrawler => ({ name, token, category: 'search' });
const other = (name: string, token = name): KnownCrawler => ({ name, token, category: 'other' });

export const KNOWN_CRAWLERS: readonly KnownCrawler[] = [
  // AI: training scrapers, assistants fetching on a user's behalf, AI search indexes.
  ai('Google-Extended'),
  ai('Applebot-Extended'),
  ai('OAI-SearchBot'),
  ai('ChatGPT-User'),
  ai('GPTBot'),
  ai('ClaudeBot'),
  ai('Claude-User'),
  ai('Claude-SearchBot'),
  ai('Claude-Web'),
  ai('anthropic-ai'),
  ai('PerplexityBot'),
  ai('Perplexity-User'),
  ai('CCBot'),
  ai('Bytespider'),
  ai('Amazonbot'),
  ai('meta-externalagent'),
  ai('meta-externalfetcher'),
  ai('FacebookBot'),
  ai('cohere-ai'),
  ai('cohere-training-data-crawler'),
  ai('Diffbot'),
  ai('YouBot'),
  ai('MistralAI-User'),
  ai('DuckAssistBot'),
  ai('Timpibot'),
  ai('ImagesiftBot'),
  ai('omgili'),
  ai('AI2Bot'),
  ai('Ai2Bot-Dolma'),
  ai('GoogleOther'),
  ai('Kangaroo Bot'),
  // Search engines' index crawlers.
  search('Googlebot'),
  search('Bingbot'),
  search('DuckDuckBot'),
  search('YandexBot'),
  search('Baiduspider'),
  search('Applebot'),
  search('Yahoo! Slurp', 'Slurp'),
  search('Qwantbot'),
  search('SeznamBot'),
  search('Naverbot', 'Yeti'),
  search('Sogou', 'Sogou web spider'),
  search('MojeekBot'),
  search('Exabot'),
  search('PetalBot'),
  // Other well-known bots, named here so their reports read well.
  other('AhrefsBot'),
  other('SemrushBot'),
  other('MJ12bot'),
  other('DotBot'),
  other('facebookexternalhit'),
  other('Twitterbot'),
  other('LinkedInBot'),
  other('Slackbot'),
  other('Discordbot'),
  other('TelegramBot'),
  other('UptimeRobot'),
];
