/**
 * Port: the local dashboard's sessions (functions/domain/dashboard-session.ts),
 * kept by the hash of their id. Times are Unix seconds.
 */
export interface DashboardSessions {
  create(idHash: string, sub: string, expiresAt: number): Promise<void>;
  /** The session's user while it is unexpired at `now`; null once expired, deleted or never made. */
  find(idHash: string, now: number): Promise<string | null>;
  /** Ends the session (sign-out): every later `find` is null. */
  delete(idHash: string): Promise<void>;
}
