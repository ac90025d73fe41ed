/**
 * One name per browser, OS and source, whoever named it (issue 40): the
 * user-agent parse, client hints and imported history map to the same name
 * (tech-names.ts); referring hosts and campaign tags of known sites take the
 * maintained referrer list's name (source-name.ts), unknown ones stay.
 */
import { describe, expect, it } from 'vitest';
import { browserName, osName } from '#domain/ingest/tech-names.ts';
import { hostSource, knownHostName, tagSource } from '#domain/ingest/source-name.ts';
import { deriveSource, parseTechnology } from '#domain/ingest/enrich.ts';

describe('browserName', () => {
  it.each([
    ['Chrome', 'Chrome'],
    ['Mobile Chrome', 'Chrome'],
    ['Chrome Mobile', 'Chrome'],
    ['Chrome Mobile iOS', 'Chrome'],
    ['Chrome Mobile WebView', 'Chrome WebView'],
    ['Google Chrome', 'Chrome'],
    ['CriOS', 'Chrome'],
    ['Mobile Safari', 'Safari'],
    ['safari', 'Safari'],
    ['Mobile Firefox', 'Firefox'],
    ['Firefox iOS', 'Firefox'],
    ['Microsoft Edge', 'Edge'],
    ['Samsung Browser', 'Samsung Internet'],
    ['IE', 'Internet Explorer'],
    ['YaBrowser', 'Yandex'],
    ['Chrome WebView', 'Chrome WebView'],
    ['Opera GX', 'Opera GX'],
    ['  Some New Browser ', 'Some New Browser'],
    ['', null],
    ['   ', null],
    [null, null],
  ])('%j is %j', (raw, name) => expect(browserName(raw)).toBe(name));
});

describe('osName', () => {
  it.each([
    ['Mac OS', 'macOS'],
    ['Mac OS X', 'macOS'],
    ['macOS', 'macOS'],
    ['MacOS', 'macOS'],
    ['OS X', 'macOS'],
    ['iOS', 'iOS'],
    ['iPadOS', 'iOS'],
    ['Windows', 'Windows'],
    ['windows', 'Windows'],
    ['Android', 'Android'],
    ['Linux', 'Linux'],
    ['Ubuntu', 'Linux'],
    ['Fedora', 'Linux'],
    ['Chromium OS', 'ChromeOS'],
    ['Chrome OS', 'ChromeOS'],
    ['ChromeOS', 'ChromeOS'],
    ['HarmonyOS', 'HarmonyOS'],
    ['BeOS', 'BeOS'],
    ['', null],
    [null, null],
  ])('%j is %j', (raw, name) => expect(osName(raw)).toBe(name));
});

describe('technology of a collected beacon', () => {
  const hints = { brands: null, mobile: null, os_name: null };
  const macChrome = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
  const iphoneSafari = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1';
  const cros = 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
  it('names the OS the same from the user agent and from client hints', () => {
    expect(parseTechnology(macChrome, hints).os).toBe('macOS');
    expect(parseTechnology(macChrome, { ...hints, os_name: 'macOS' }).os).toBe('macOS');
    expect(parseTechnology(cros, hints).os).toBe('ChromeOS');
    expect(parseTechnology(cros, { ...hints, os_name: 'Chrome OS' }).os).toBe('ChromeOS');
  });
  it('names a mobile browser as its desktop one', () => {
    expect(parseTechnology(iphoneSafari, hints)).toEqual({ browser: 'Safari', os: 'iOS', device: 'mobile' });
  });
});

describe('source names', () => {
  it.each([
    ['google.com', 'Google'],
    ['google.de', 'Google'],
    ['google.co.uk', 'Google'],
    ['bing.com', 'Bing'],
    ['duckduckgo.com', 'DuckDuckGo'],
    ['facebook.com', 'Facebook'],
    ['l.facebook.com', 'Facebook'],
    ['m.facebook.com', 'Facebook'],
    ['t.co', 'Twitter'],
    ['x.com', 'Twitter'],
    ['twitter.com', 'Twitter'],
    ['linkedin.com', 'LinkedIn'],
    ['reddit.com', 'Reddit'],
    ['old.reddit.com', 'Reddit'],
    ['youtube.com', 'YouTube'],
    ['m.youtube.com', 'YouTube'],
    ['instagram.com', 'Instagram'],
    ['news.ycombinator.com', 'Hacker News'],
  ])('the host %s is %s', (host, name) => expect(hostSource(host)).toBe(name));

  it('keeps unknown hosts, and never takes a known key that is only a prefix of the host text', () => {
    expect(hostSource('news.example')).toBe('news.example');
    expect(hostSource('t.copilot.example')).toBe('t.copilot.example');
    expect(hostSource('x.company.example')).toBe('x.company.example');
    expect(knownHostName('localhost')).toBeNull();
  });

  it.each([
    ['google', 'Google'],
    ['Google', 'Google'],
    ['twitter', 'Twitter'],
    ['facebook', 'Facebook'],
    ['youtube', 'YouTube'],
    ['google.com', 'Google'],
    ['www.google.de', 'Google'],
    ['newsletter', 'newsletter'],
    ['weekly-newsletter', 'weekly-newsletter'],
    ['ghost-explore', 'ghost-explore'],
  ])('the campaign tag %s is %s', (tag, name) => expect(tagSource(tag)).toBe(name));

  it('derives the source with campaign precedence, then the referring host, internal navigation none', () => {
    const none = { utm_source: null, campaign_source: null, campaign_ref: null };
    expect(deriveSource(none, 'google.de', 'blog.example')).toBe('Google');
    expect(deriveSource({ ...none, utm_source: 'google' }, 'news.example', 'blog.example')).toBe('Google');
    expect(deriveSource({ ...none, campaign_ref: ' spring ' }, 'google.com', 'blog.example')).toBe('spring');
    expect(deriveSource({ ...none, utm_source: '  ' }, 'google.com', 'blog.example')).toBeNull();
    expect(deriveSource(none, 'app.blog.example', 'blog.example')).toBeNull();
    expect(deriveSource(none, 'news.example', 'blog.example')).toBe('news.example');
  });
});
