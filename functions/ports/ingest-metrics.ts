/**
 * Port: what ingestion reports about itself (functions/domain/ingest/pipeline.ts).
 * Every input that stores nothing is counted here by its reason, once; where
 * steps are timed, each step's time comes here too. The service counts drops
 * (functions/platform/collector-drops.ts) and times nothing; the bench times
 * every step (test/bench/collector-phases.ts).
 */
import type { DropReason } from '#domain/ingest/drop.ts';

/** Where each step's time goes, and the clock it is read on. */
export interface StepTimer {
  /** Milliseconds since any fixed origin (performance.now). */
  now(): number;
  timeStep(step: string, ms: number): void;
}

export interface IngestMetrics {
  /**
   * One input stored nothing. `hostname` is the one its payload named, as
   * sent, once the payload was read; null for drops decided before that
   * (`dnt`, `invalid`).
   */
  dropped(reason: DropReason, hostname: string | null): void;
  /** Present where steps are timed: the runner reads no clock without it (the beacon's hot path). */
  readonly stepTimer?: StepTimer | undefined;
}
