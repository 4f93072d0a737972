/**
 * A wait that ends early when someone calls notify(). A notify with nobody waiting is remembered, so a
 * notification that arrives while the waiter is busy is not lost.
 */
export class Wakeup {
  private pending = false;
  private release?: () => void;

  notify(): void {
    const release = this.release;
    if (release) {
      this.release = undefined;
      release();
    } else {
      this.pending = true;
    }
  }

  /** Resolves true when notified, false when `ms` passed first. */
  wait(ms: number): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.release = undefined;
        resolve(false);
      }, ms);
      this.release = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}

/** Sleeps `ms`, ending early (without error) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Exponential backoff with jitter: between half and all of min(maxMs, initialMs * 2^(attempt-1)). */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
