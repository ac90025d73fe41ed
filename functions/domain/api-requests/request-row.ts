/**
 * One request an owner's API served, as `POST /api/ingest` stores it: the
 * route template (never a raw path), method, status, duration and sizes, and
 * an opaque caller label. Arrival time only: a client never sets `ts`.
 */
export interface ApiRequestRow {
  /** The API site's hostname. */
  site: string;
  /** The registration that received the row (domain/registration.ts), as EventRow.registration. */
  registration: string;
  /** Arrival time, Unix milliseconds (one value for a whole batch). */
  ts: number;
  /** Unique per stored request (the writer de-duplicates on (site, registration, id, ts)). */
  id: string;
  /** Upper case: GET, POST, … */
  method: string;
  /** The route template, ≤ 256 characters (`/users/{id}`). */
  route: string;
  /** HTTP status 100..599. */
  status: number;
  /** Milliseconds, ≥ 0. */
  duration_ms: number;
  bytes_in: number | null;
  bytes_out: number | null;
  /** Opaque caller label, ≤ 64 characters. */
  consumer: string | null;
}
