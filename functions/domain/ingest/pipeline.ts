/**
 * Ingestion as a list of named steps run in order. Each step returns the next
 * value or a Drop; the runner stops at the first Drop and counts it by its
 * reason, and times every step, through the metrics port. Nothing here knows
 * beacons: a kind of incoming row is its own decode steps followed by the
 * shared ones (collect.ts).
 */
import { isDrop, type Drop } from './drop.ts';
import type { IngestMetrics } from '#ports/ingest-metrics.ts';

/** Counts nothing: for what is no input (a HEAD request on an image route). */
export const uncounted: IngestMetrics = { dropped: () => {} };

/** A step's answer: a promise only when it must wait, so that a beacon for a known site awaits only its queue. */
export type StepOutcome<T> = T | Drop | Promise<T | Drop>;

/** One named step. Its values are never objects with a `drop` field (that is how a Drop is told apart). */
export interface Step<In, Out, Ctx = unknown> {
  readonly name: string;
  run(value: In, ctx: Ctx): StepOutcome<Out>;
  /** The hostname the step's input names, as sent: a drop here is counted with it (none before a payload is read). */
  sentHostname?(value: In): string;
}

type AnyStep<Ctx> = Step<unknown, unknown, Ctx>;

/** An ordered list of steps from `In` to `Out`, typed link by link as it is built. */
export class Steps<In, Out, Ctx = unknown> {
  private constructor(readonly list: readonly AnyStep<Ctx>[]) {}

  /** No step yet: the list starts from `In`. */
  static from<In, Ctx = unknown>(): Steps<In, In, Ctx> {
    return new Steps<In, In, Ctx>([]);
  }

  then<Next, C extends Ctx = Ctx>(step: Step<Out, Next, C>): Steps<In, Next, C> {
    return new Steps<In, Next, C>([...this.list, step as AnyStep<C>]);
  }

  /** These steps, then `rest` (a kind's decode steps, then the shared ones). */
  concat<Next, C extends Ctx = Ctx>(rest: Steps<Out, Next, C>): Steps<In, Next, C> {
    return new Steps<In, Next, C>([...this.list, ...rest.list]);
  }

  get names(): string[] {
    return this.list.map((step) => step.name);
  }
}

/**
 * Runs `steps` over `input` with `ctx` (the ports and memory the steps read):
 * the last step's value, or the first Drop, counted. A step that throws is no
 * drop: the error reaches the caller.
 */
export async function runPipeline<In, Out, Ctx>(input: In, steps: Steps<In, Out, Ctx>, metrics: IngestMetrics, ctx: Ctx): Promise<Out | Drop> {
  const timer = metrics.stepTimer;
  let value: unknown = input;
  for (const step of steps.list) {
    const started = timer ? timer.now() : 0;
    let next = step.run(value, ctx);
    if (next instanceof Promise) next = await next;
    if (timer) timer.timeStep(step.name, timer.now() - started);
    if (isDrop(next)) {
      metrics.dropped(next.drop, step.sentHostname ? step.sentHostname(value) : null);
      return next;
    }
    value = next;
  }
  // Each link of `steps` was typed from the one before (Steps.then): the last value is an Out.
  return value as Out;
}
