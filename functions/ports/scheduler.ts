/**
 * Port: scheduled work (EventBridge rules on AWS; in-process timers locally,
 * on the service clock). A job's `run` is the same worker entry both call.
 */
export interface ScheduledJob {
  /** Names the job in logs and start-up lines. */
  name: string;
  /** Runs at every multiple of this many minutes since 00:00 UTC (1: every minute at :00 seconds). */
  everyMinutes: number;
  /** Also run once as soon as the scheduler starts (catch-up work such as the salt rotation). */
  runAtStart?: boolean;
  /** `now` is the scheduled minute (the clock's time, floored to the minute). */
  run(now: Date): Promise<unknown>;
}

export interface Scheduler {
  add(job: ScheduledJob): void;
  /** Stops every timer and waits for runs in progress. */
  stop(): Promise<void>;
}

/** One-shot timers: Node's (functions/workers/rotate-salts.ts systemTimers), or a test's own. */
export interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}
