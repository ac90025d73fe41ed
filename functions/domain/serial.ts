/** Runs tasks one after another, each once the one before has settled (failed or not): the writes of one connection. */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T = void>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every task asked for so far has settled. */
  settled(): Promise<unknown> {
    return this.tail;
  }
}
