/**
 * Site icons (spec part 3 "stored icon"): fetched when a site verifies and
 * again once a week, from the page's `<link rel="icon">` or `/favicon.ico`,
 * through the verifier's address guard and limits. Only images whose bytes
 * say PNG, ICO, GIF, JPEG or WebP are kept (never SVG, which can carry
 * script), at most ICON_MAX_BYTES; the type served is the one the bytes
 * show, not the one the site claimed.
 */
import type { Clock } from '#ports/clock.ts';
import type { Logger } from '#ports/logger.ts';
import type { IconStore, SiteIcon } from '#ports/icon-store.ts';
import type { PageCheck, PageChecker } from '#ports/page-checker.ts';

export const ICON_MAX_BYTES = 64 * 1024;
export const ICON_REFRESH_MS = 7 * 86_400_000;

/** A neutral square for sites without an icon (served with the icon's own headers). */
export const PLACEHOLDER_ICON = {
  body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#cbd5e1"/></svg>'),
  contentType: 'image/svg+xml',
};

const startsWith = (bytes: Buffer, prefix: readonly number[], at = 0) => prefix.every((b, i) => bytes[at + i] === b);

/** The image type the bytes show, or null for anything else. */
export function sniffIconType(bytes: Buffer): string | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00]) && bytes.length >= 6) return 'image/x-icon';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return null;
}

/** Whether the stored icon is a week old (or there is none yet). */
export const iconIsStale = (icon: SiteIcon | null, now: Date): boolean => icon === null || now.getTime() - Date.parse(icon.checkedAt) >= ICON_REFRESH_MS;

export interface IconServices {
  pageChecker: PageChecker;
  icons: IconStore;
  clock: Clock;
  log: Logger;
}

/**
 * Looks for the site's icon at the places the page names, the first image
 * that passes wins, and stores it (or that none was found, so the next look
 * waits a week). The page is the one a verification just read, if any.
 */
export async function refreshIcon(services: IconServices, hostname: string, page: PageCheck): Promise<SiteIcon> {
  let image: SiteIcon['image'] = null;
  for (const url of page.reachable ? page.iconUrls : []) {
    const body = await services.pageChecker.fetchImage(url, ICON_MAX_BYTES);
    const contentType = body && body.length > 0 ? sniffIconType(body) : null;
    if (body && contentType) {
      image = { body, contentType };
      break;
    }
  }
  const icon: SiteIcon = { image, checkedAt: services.clock.now().toISOString() };
  try {
    await services.icons.put(hostname, icon);
  } catch (e) {
    // The icon is a nicety: the caller still gets it, and the next read tries to store it again.
    services.log.warn('storing the site icon failed', { hostname, message: (e as Error).message });
  }
  return icon;
}
