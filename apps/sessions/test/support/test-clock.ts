import { Clock } from '../../src/shared/clock';

/** The real time shifted by an offset: commands act "in the past" to make sessions that are due soon. */
export class TestClock extends Clock {
  offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Runs `work` with the clock shifted by `offsetMs`, then puts it back. */
  async shifted<T>(offsetMs: number, work: () => Promise<T>): Promise<T> {
    const previous = this.offsetMs;
    this.offsetMs = offsetMs;
    try {
      return await work();
    } finally {
      this.offsetMs = previous;
    }
  }
}

/** A clock that moves only when told: a job's "now" that a slow machine cannot move on behind a test's back. */
export class StoppedClock extends Clock {
  constructor(private at: Date) {
    super();
  }

  now(): Date {
    return new Date(this.at.getTime());
  }

  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}
