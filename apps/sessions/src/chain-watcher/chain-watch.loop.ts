import { Logger } from '@nestjs/common';
import type { ChainLocks } from './chain-locks';
import { WatchFencedError, type ChainWatchStore, type StoredWatch } from './chain-watch.store';
import { headBlock, reorgs, rpcErrors, scannedBlock, stepFailures, transfersCounted, transfersReversed, watching } from './chain-watcher.metrics';
import type { ChainReader, ConfirmedTransferSink, CryptoChain, WatchedAddresses } from './domain/ports';
import { ChainMovedError, hashWindow, scanStep, type ScanSettings, type WatchNote } from './domain/scan-step';

export interface ChainWatchLoopOptions {
  chain: CryptoChain;
  reader: ChainReader;
  watched: WatchedAddresses;
  sink: ConfirmedTransferSink;
  store: ChainWatchStore;
  locks: ChainLocks;
  settings: ScanSettings;
  pollIntervalMs: number;
  /** Longest pause between retries of a failing step. */
  retryMaxMs: number;
}

/** A failed call to the chain's node (counted, and named so in the logs). */
export class RpcError extends Error {
  constructor(method: string, cause: unknown) {
    super(`${method}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RpcError';
  }
}

/** The same failure is logged again at most this often while it lasts (a node down for an hour is not 3600 lines). */
const FAILURE_LOG_EVERY_MS = 60_000;

export type StepOutcome = 'standby' | 'idle' | 'behind';

/**
 * Watches one chain: a step per poll while this instance holds the chain's lock, straight on while behind. A step
 * tells the sink first and stores its state after (one transaction): a crash between repeats the sink's calls,
 * which are idempotent by transfer key, and never skips one. A failing step (node down, database away) is retried
 * with a growing pause and never ends the loop; the next good step catches up from the stored block.
 */
export class ChainWatchLoop {
  private readonly logger: Logger;
  private readonly reader: ChainReader;
  private stopped = false;
  private running?: Promise<void>;
  private wake?: () => void;
  private failures = 0;
  private lastFailureLog = 0;
  /**
   * The chain's state as this instance stored it last, while it has held the chain since: the next step starts from
   * it instead of reading it back (a step a block would otherwise begin with a transaction of three reads). Dropped
   * on any failure and whenever the chain is not held; should another instance have stored a step meanwhile, the
   * fenced save refuses this one and the next step reads the table.
   */
  private kept: StoredWatch | null = null;

  constructor(private readonly options: ChainWatchLoopOptions) {
    this.logger = new Logger(`ChainWatcher:${options.chain.name}`);
    this.reader = countingFailures(options.reader, options.chain.name);
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  /** One step if this instance holds the chain. */
  async runOnce(): Promise<StepOutcome> {
    const { chain, store, locks, sink } = this.options;
    const label = { chain: chain.name };
    if (!(await locks.hold(chain.chainId))) {
      this.kept = null;
      watching.set(label, 0);
      return 'standby';
    }
    watching.set(label, 1);
    const window = hashWindow(chain, this.options.settings);
    const before = this.kept ?? (await store.load(chain.chainId, window));
    this.kept = null;
    const result = await scanStep({ chain, reader: this.reader, watched: this.options.watched, state: before?.state ?? null, settings: this.options.settings });
    for (const transfer of result.record) await sink.record(transfer);
    for (const transfer of result.reverse) await sink.reportReversed(transfer);
    const stored = await store.save(chain.name, before, result.state, result.head, window);
    // Kept only while the lock is still ours: a lost lock connection means another instance may step next.
    if (locks.holds(chain.chainId)) this.kept = stored;

    for (const note of result.notes) this.note(note);
    headBlock.set(label, Number(result.head));
    scannedBlock.set(label, Number(result.state.nextBlock - 1n));
    if (result.reorg) reorgs.inc({ chain: chain.name, deep: String(result.reorg.deep) });
    if (result.record.length > 0) {
      transfersCounted.inc(label, result.record.length);
      for (const t of result.record) this.logger.log({ sessionId: t.sessionId, txHash: t.txHash, logIndex: t.logIndex, block: t.blockNumber.toString(), units: t.units.toString() }, 'transfer confirmed and recorded');
    }
    if (result.reverse.length > 0) transfersReversed.inc(label, result.reverse.length);
    return result.caughtUp ? 'idle' : 'behind';
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let pause = this.options.pollIntervalMs;
      try {
        const outcome = await this.runOnce();
        if (this.failures > 0) this.logger.log({ failures: this.failures }, 'chain watch steps work again: catching up');
        this.failures = 0;
        if (outcome === 'behind') pause = 0;
      } catch (error) {
        pause = this.failed(error);
      }
      await this.sleep(pause);
    }
    watching.set({ chain: this.options.chain.name }, 0);
  }

  private failed(error: unknown): number {
    const poll = this.options.pollIntervalMs;
    if (error instanceof ChainMovedError) {
      this.logger.log({ reason: error.message }, 'the chain changed during a step: reading it again');
      return poll;
    }
    if (error instanceof WatchFencedError) {
      this.logger.warn({ reason: error.message }, 'another instance took the chain over: this step is void');
      return poll;
    }
    stepFailures.inc({ chain: this.options.chain.name });
    this.failures++;
    const now = Date.now();
    if (this.failures === 1 || now - this.lastFailureLog >= FAILURE_LOG_EVERY_MS) {
      this.lastFailureLog = now;
      const message = error instanceof RpcError ? 'the chain node failed; retrying with backoff' : 'a chain watch step failed; retrying with backoff';
      this.logger.error({ err: error, failures: this.failures }, message);
    }
    return Math.min(this.options.retryMaxMs, poll * 2 ** Math.min(this.failures - 1, 16));
  }

  private note(note: WatchNote): void {
    if (note.level === 'error') this.logger.error(note.data, note.message);
    else if (note.level === 'warn') this.logger.warn(note.data, note.message);
    else this.logger.log(note.data, note.message);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** The reader with each failed call counted and wrapped as an RpcError. */
function countingFailures(reader: ChainReader, chain: string): ChainReader {
  const call = async <T>(method: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      rpcErrors.inc({ chain });
      throw new RpcError(method, error);
    }
  };
  return {
    head: () => call('head', () => reader.head()),
    blockHash: (number) => call('blockHash', () => reader.blockHash(number)),
    transfersTo: (tokens, recipients, from, to) => call('transfersTo', () => reader.transfersTo(tokens, recipients, from, to)),
  };
}
