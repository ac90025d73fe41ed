/** Where domain steps and adapters report a failure worth a line of its own (functions/platform/log.ts in the service). */
export interface Logger {
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A Logger that also takes what went well and an operator wants to see (dead letters replayed, a secret re-read). */
export interface InfoLogger extends Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
}
