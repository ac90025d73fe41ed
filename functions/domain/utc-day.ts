/** YYYY-MM-DD of a Unix ms time in UTC: the day a visitor salt belongs to. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
