/** A colour of the page's palette (styles.css custom properties), read when a chart is drawn, so charts follow dark mode. */
export const paletteColor = (name: string, fallback: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
