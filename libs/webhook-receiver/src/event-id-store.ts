/**
 * Remembers which event ids were handled, so each is handled once although it may arrive several times
 * (retries, resends, replays). A production receiver keeps this where its own data is (a unique key in its
 * database, ideally in the transaction of the effect); the in-memory store suits one process and examples.
 */
export interface EventIdStore {
  /**
   * Claims an id for handling: 'claimed' (go ahead), 'done' (already handled: acknowledge and skip) or
   * 'in_progress' (another delivery of it is being handled right now).
   */
  claim(id: string): Promise<ClaimResult> | ClaimResult;
  /** The handler succeeded: the id is done. */
  complete(id: string): Promise<void> | void;
  /** The handler failed: the id may be claimed again (the service retries). */
  release(id: string): Promise<void> | void;
}

export type ClaimResult = 'claimed' | 'done' | 'in_progress';

export interface MemoryEventIdStoreOptions {
  /** How long a handled id is remembered (default 30 days, the service's replay window). */
  ttlMs?: number;
  /** Most ids kept; the oldest are forgotten first (default 100 000). */
  maxEntries?: number;
  now?: () => number;
}

export class MemoryEventIdStore implements EventIdStore {
  private readonly done = new Map<string, number>();
  private readonly inProgress = new Set<string>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: MemoryEventIdStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30 * 24 * 3600 * 1000;
    this.maxEntries = options.maxEntries ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  claim(id: string): ClaimResult {
    const doneAt = this.done.get(id);
    if (doneAt !== undefined && this.now() - doneAt < this.ttlMs) return 'done';
    if (this.inProgress.has(id)) return 'in_progress';
    this.inProgress.add(id);
    return 'claimed';
  }

  complete(id: string): void {
    this.inProgress.delete(id);
    this.done.delete(id);
    this.done.set(id, this.now());
    // Maps iterate in insertion order: the first keys are the oldest.
    while (this.done.size > this.maxEntries) this.done.delete(this.done.keys().next().value as string);
  }

  release(id: string): void {
    this.inProgress.delete(id);
  }

  /** Ids handled so far (tests, diagnostics). */
  handledCount(): number {
    return this.done.size;
  }
}
