interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Hands what concurrent callers submit to `run` together: everything submitted in one event-loop turn, and
 * while a run is in progress everything submitted meanwhile, goes into the next run (one run at a time, as a
 * database's group commit). Under load hundreds of round trips a second become tens; when idle an item waits only
 * for the end of its turn. `run` answers one result per item, in order; if it throws, every item of that run
 * fails with its error. `take`, when given, says how many of the oldest waiting items the next run gets (at least
 * one); the rest wait, in order, for the run after it.
 */
export class TurnBatcher<T, R> {
  private queue: Array<Pending<T, R>> = [];
  private running = false;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly take?: (waiting: readonly T[]) => number,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.nextBatch();
      try {
        const results = await this.run(batch.map((p) => p.item));
        if (results.length !== batch.length) throw new Error(`batch of ${batch.length} answered ${results.length} results`);
        batch.forEach((p, i) => p.resolve(results[i]!));
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    this.running = false;
  }

  private nextBatch(): Array<Pending<T, R>> {
    const all = this.queue;
    const n = this.take ? Math.max(1, Math.min(all.length, this.take(all.map((p) => p.item)))) : all.length;
    if (n === all.length) {
      this.queue = [];
      return all;
    }
    this.queue = all.slice(n);
    return all.slice(0, n);
  }
}
