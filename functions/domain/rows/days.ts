/** Day arithmetic of stored rows: the UTC day a row, a visitor salt or a rollup belongs to. */
export const DAY_MS = 86_400_000;

/** YYYY-MM-DD of a Unix ms time in UTC: the day a visitor salt belongs to. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
