/**
 * One name per browser and per operating system, whoever named it: the
 * user-agent parse (ua-parser-js 1: `Mac OS`, `Mobile Safari`, `Chromium OS`),
 * client hints (`macOS`, `Chrome OS`), and imported history (Simple
 * Analytics: `Mac OS X`, `Chrome Mobile`, …). The collector and imports both
 * store what these give, so a breakdown never lists one browser or OS twice.
 * A name not in the tables is kept as sent (trimmed); an empty one is none.
 */

/** A lookup key: lowercase, runs of spaces, `_` and `-` as one space. */
const keyOf = (name: string) => name.trim().toLowerCase().replace(/[\s_-]+/g, ' ');

const table = (entries: Record<string, readonly string[]>): ReadonlyMap<string, string> =>
  new Map(Object.entries(entries).flatMap(([name, aliases]) => [name, ...aliases].map((alias) => [keyOf(alias), name] as const)));

/** Browsers by every name the sources give them (a `Mobile` prefix or suffix is dropped first). */
const BROWSERS = table({
  Chrome: ['Google Chrome', 'Chrome iOS', 'Chrome Mobile iOS', 'CriOS', 'Chrome Android'],
  'Chrome WebView': ['Chrome Mobile WebView', 'Android WebView'],
  Safari: ['Mobile Safari', 'Safari iOS', 'Safari Mobile'],
  Firefox: ['Mozilla Firefox', 'Firefox iOS', 'FxiOS'],
  Edge: ['Microsoft Edge', 'Edge iOS', 'EdgiOS', 'EdgA'],
  'Samsung Internet': ['Samsung Browser', 'SamsungBrowser'],
  Opera: ['Opera Mobi'],
  'Internet Explorer': ['IE', 'MSIE'],
  Yandex: ['Yandex Browser', 'YaBrowser'],
  'UC Browser': ['UCBrowser'],
  DuckDuckGo: ['DuckDuckGo Browser', 'DDG'],
  Brave: ['Brave Browser'],
  Vivaldi: [],
  Chromium: [],
});

/** Operating systems by every name the sources give them; Linux distributions are Linux. */
const SYSTEMS = table({
  macOS: ['Mac OS', 'Mac OS X', 'MacOS X', 'OS X', 'Macintosh', 'Mac'],
  iOS: ['iPhone OS', 'iPadOS', 'iPad OS'],
  Windows: ['Windows NT', 'Win32', 'Win64', 'Microsoft Windows'],
  Android: [],
  Linux: ['GNU/Linux', 'Ubuntu', 'Debian', 'Fedora', 'Arch', 'Arch Linux', 'Linux Mint', 'Mint', 'Manjaro', 'openSUSE', 'SUSE', 'Gentoo', 'CentOS', 'Red Hat', 'Kubuntu', 'Xubuntu'],
  ChromeOS: ['Chrome OS', 'Chromium OS', 'CrOS'],
  HarmonyOS: [],
});

const named = (map: ReadonlyMap<string, string>, raw: string | null | undefined, key: (name: string) => string): string | null => {
  const name = raw?.trim();
  if (!name) return null;
  return map.get(key(name)) ?? name;
};

/** The one name of a browser. */
export const browserName = (raw: string | null | undefined): string | null => named(BROWSERS, raw, (name) => keyOf(name).replace(/^mobile |(?<=.) mobile$/, ''));

/** The one name of an operating system. */
export const osName = (raw: string | null | undefined): string | null => named(SYSTEMS, raw, keyOf);
