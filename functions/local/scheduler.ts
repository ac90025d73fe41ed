/**
 * The Scheduler port on one machine: in-process timers on the service clock
 * calling the same worker entries EventBridge calls on AWS. A job runs at each
 * multiple of its period since 00:00 UTC, handed that minute; a run still
 * going when the next is due is skipped (logged), a failed one logged, and
 * the schedule goes on. Clock and timers are injected, so tests move time.
 */
import type { Clock } from '#ports/clock.ts';
import type { Logger } from '#ports/logger.ts';
import type { ScheduledJob, Scheduler } from '#ports/scheduler.ts';
import { systemTimers, type Timers } from '#workers/rotate-salts.ts';

const MINUTE_MS = 60_000;

export class TimerScheduler implements Scheduler {
  private readonly timers = new Map<string, unknown>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly jobs = new Map<string, ScheduledJob>();
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly timerApi: Timers = systemTimers,
  ) {}

  add(job: ScheduledJob): void {
    if (this.timers.has(job.name)) throw new Error(`a job named ${job.name} is already scheduled`);
    this.jobs.set(job.name, job);
    this.arm(job);
    if (job.runAtStart) this.run(job, new Date(Math.floor(this.clock.now().getTime() / MINUTE_MS) * MINUTE_MS));
  }

  /** Runs a job now for `minute` (what a timer does when it fires); resolves when that run ends. */
  run(job: ScheduledJob, minute: Date): Promise<void> {
    const going = this.running.get(job.name);
    if (going) {
      this.log.warn('scheduled run skipped: the previous one is still going', { job: job.name, minute: minute.toISOString() });
      return going;
    }
    const run = job
      .run(minute)
      .then(
        () => undefined,
        (e: unknown) => this.log.error('scheduled run failed', { job: job.name, minute: minute.toISOString(), message: (e as Error).message }),
      )
      .finally(() => this.running.delete(job.name));
    this.running.set(job.name, run);
    return run;
  }

  /** Runs the job named `name` now for `minute`, as its timer would (tests); false when no such job is scheduled. */
  async runNamed(name: string, minute: Date): Promise<boolean> {
    const job = this.jobs.get(name);
    if (job) await this.run(job, minute);
    return Boolean(job);
  }

  private arm(job: ScheduledJob): void {
    if (this.stopped) return;
    const period = job.everyMinutes * MINUTE_MS;
    const now = this.clock.now().getTime();
    const due = Math.floor(now / period) * period + period;
    this.timers.set(
      job.name,
      this.timerApi.set(() => {
        void this.run(job, new Date(due));
        this.arm(job);
      }, due - now),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) this.timerApi.clear(timer);
    this.timers.clear();
    await Promise.all(this.running.values());
  }
}
