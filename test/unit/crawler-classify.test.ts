import { describe, expect, it } from 'vitest';
import { classifyUserAgent } from '#domain/crawlers/classify.ts';

const UA = {
  gptbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  chatgptUser: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  oaiSearch: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  claudebot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  perplexity: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  ccbot: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
  bytespider: 'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
  amazonbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36',
  meta: 'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  anthropic: 'anthropic-ai',
  claudeWeb: 'Claude-Web/1.0 (web crawler; +https://www.anthropic.com/)',
  googleExtended: 'Mozilla/5.0 (compatible; Google-Extended)',
  applebotExtended: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot-Extended/0.1)',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  duckduckbot: 'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
  yandex: 'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
  baidu: 'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
  applebot: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  slurp: 'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
  ahrefs: 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  unlisted: 'Mozilla/5.0 (compatible; ZoominfoBot (zoominfobot at zoominfo dot com))',
  curl: 'curl/8.4.0',
  chrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  safari: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
};

describe('classifyUserAgent', () => {
  it.each([
    ['gptbot', 'GPTBot'],
    ['chatgptUser', 'ChatGPT-User'],
    ['oaiSearch', 'OAI-SearchBot'],
    ['claudebot', 'ClaudeBot'],
    ['perplexity', 'PerplexityBot'],
    ['ccbot', 'CCBot'],
    ['bytespider', 'Bytespider'],
    ['amazonbot', 'Amazonbot'],
    ['meta', 'meta-externalagent'],
    ['anthropic', 'anthropic-ai'],
    ['claudeWeb', 'Claude-Web'],
    ['googleExtended', 'Google-Extended'],
    ['applebotExtended', 'Applebot-Extended'],
  ] as const)('%s is the AI crawler %s', (key, name) => {
    expect(classifyUserAgent(UA[key])).toEqual({ name, category: 'ai' });
  });

  it.each([
    ['googlebot', 'Googlebot'],
    ['bingbot', 'Bingbot'],
    ['duckduckbot', 'DuckDuckBot'],
    ['yandex', 'YandexBot'],
    ['baidu', 'Baiduspider'],
    ['applebot', 'Applebot'],
    ['slurp', 'Yahoo! Slurp'],
  ] as const)('%s is the search crawler %s', (key, name) => {
    expect(classifyUserAgent(UA[key])).toEqual({ name, category: 'search' });
  });

  it('names a listed other bot by the table and an unlisted one by its product token', () => {
    expect(classifyUserAgent(UA.ahrefs)).toEqual({ name: 'AhrefsBot', category: 'other' });
    expect(classifyUserAgent(UA.unlisted)).toEqual({ name: 'ZoominfoBot', category: 'other' });
  });

  it('counts a bot without a product token as "Other bot"', () => {
    expect(classifyUserAgent(UA.curl)).toEqual({ name: 'Other bot', category: 'other' });
  });

  it('does not count browsers', () => {
    expect(classifyUserAgent(UA.chrome)).toBeNull();
    expect(classifyUserAgent(UA.safari)).toBeNull();
  });

  it('matches a token only as a word of its own', () => {
    expect(classifyUserAgent('Mozilla/5.0 (compatible; NotGPTBotx/1.0)')?.name).not.toBe('GPTBot');
  });
});
