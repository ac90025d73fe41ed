/** Where domain steps report a failure worth a line of its own (functions/platform/log.ts in the service). */
export interface Logger {
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}
