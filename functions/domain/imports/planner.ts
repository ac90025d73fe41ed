/**
 * The chunk planner: an import's inclusive date range in calendar-month
 * chunks (the first and last may be partial), each once for page views and
 * once for events. A chunk is named by its index alone: the plan is a pure
 * function of the range, so queue messages and progress records carry
 * numbers, and a retry re-plans to the very same chunks.
 */
import { addDays, endOfMonth } from './dates.ts';

export type ChunkType = 'pageviews' | 'events';
export const CHUNK_TYPES: readonly ChunkType[] = ['pageviews', 'events'];

export interface ImportChunk {
  index: number;
  type: ChunkType;
  /** Inclusive, YYYY-MM-DD. */
  start: string;
  /** Inclusive, YYYY-MM-DD. */
  end: string;
}

/** The month slices of [start, end], both inclusive; `end` ≥ `start`. */
export function monthSlices(start: string, end: string): { start: string; end: string }[] {
  const slices: { start: string; end: string }[] = [];
  let from = start;
  while (from <= end) {
    const monthEnd = endOfMonth(from);
    const to = monthEnd < end ? monthEnd : end;
    slices.push({ start: from, end: to });
    from = addDays(to, 1);
  }
  return slices;
}

/** Chunk 2m is month m's page views, chunk 2m + 1 its events. */
export function planChunks(start: string, end: string): ImportChunk[] {
  return monthSlices(start, end).flatMap((slice, m) => CHUNK_TYPES.map((type, t) => ({ index: m * CHUNK_TYPES.length + t, type, ...slice })));
}

export function chunkAt(start: string, end: string, index: number): ImportChunk | null {
  return planChunks(start, end)[index] ?? null;
}

/** Indexes of the chunks not in `done`, in order. */
export function unfinishedChunks(chunksTotal: number, done: readonly number[]): number[] {
  const finished = new Set(done);
  return Array.from({ length: chunksTotal }, (_, i) => i).filter((i) => !finished.has(i));
}
