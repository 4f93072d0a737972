import { tracingEnabled } from '@payments/tracing';
import type { DataSource } from 'typeorm';
import type { ValidMessage } from './consumer-message.decoder';
import { messageContext, type BeforeCommit, type ClaimedWrites, type EventHandler, type HandleOutcome } from './event-handler';
import type { InboxStore } from './inbox.store';
import type { MessagingLogger } from './messaging.logger';
import { ConsumeSpan } from './message-tracing';

export type RunResult = { committed: true; outcomes: HandleOutcome[] } | { committed: false; failedAt?: number; error: unknown };

/**
 * The exactly-once step: events recorded in the consumer's inbox and applied by the handler in one transaction,
 * so an event delivered again finds its inbox row and has no second effect.
 */
export class InboxTransactions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly inbox: InboxStore,
    private readonly handler: EventHandler,
    private readonly beforeCommit: BeforeCommit = async () => undefined,
    /** Whether the handler acts on an event at all (see EventConsumerOptions.eventTypes and skips). */
    private readonly acts: (item: ValidMessage) => boolean = () => true,
    /** While tracing, a debug line per event handled, within its span (so it carries the trace id). */
    private readonly logger?: MessagingLogger,
    /** When set, each run is the inbox claim and these writes as one statement (see ClaimedWrites). */
    private readonly claimedWrites?: ClaimedWrites,
  ) {}

  /**
   * A run of events in one transaction (one inbox statement); on failure, which event failed, if a handler did.
   * Events the handler does not act on get no inbox row, and a run of only those no transaction.
   */
  async run(run: ValidMessage[]): Promise<RunResult> {
    const acting = run.filter((item) => this.acts(item));
    if (acting.length === 0) return { committed: true, outcomes: run.map(() => 'ignored') };
    if (this.claimedWrites) return this.runClaimed(run, 1, this.claimedWrites);
    const progress: { failedAt?: number } = {};
    // A span per event handled; all end with the transaction (its commit is part of handling them).
    const spans: ConsumeSpan[] | undefined = tracingEnabled() ? [] : undefined;
    let failure: unknown;
    try {
      const outcomes = await this.dataSource.transaction(async (manager) => {
        const fresh = await this.inbox.claim(manager, acting.map((item) => item.envelope.id));
        const outcomes: HandleOutcome[] = [];
        for (const [i, item] of run.entries()) {
          if (!this.acts(item)) {
            outcomes.push('ignored');
            continue;
          }
          // The first copy of an event in the run is the one handled; any later copy is a duplicate.
          if (!fresh.delete(item.envelope.id)) {
            outcomes.push('duplicate');
            continue;
          }
          progress.failedAt = i;
          const span = spans && ConsumeSpan.of(item, 1);
          if (span) {
            spans!.push(span);
            await span.run(async () => {
              await this.handler(item.envelope, manager, messageContext(item, 1));
              this.handled(item, 1);
            });
          } else {
            await this.handler(item.envelope, manager, messageContext(item, 1));
          }
          progress.failedAt = undefined;
          outcomes.push('handled');
        }
        await this.beforeCommit(manager);
        return outcomes;
      });
      return { committed: true, outcomes };
    } catch (error) {
      failure = error;
      return { committed: false, failedAt: progress.failedAt, error };
    } finally {
      if (spans) for (const span of spans) span.end(failure);
    }
  }

  /**
   * A run as one statement: the handler gathers each event's writes (the first copy of each id; the statement
   * writes only for events the claim let through), then the claim and the writes go in one round trip.
   */
  private async runClaimed(run: ValidMessage[], attempt: number, claimedWrites: ClaimedWrites): Promise<RunResult> {
    const manager = this.dataSource.createEntityManager();
    const gathered = new Set<string>();
    const spans: ConsumeSpan[] | undefined = tracingEnabled() ? [] : undefined;
    let failedAt: number | undefined;
    let failure: unknown;
    try {
      for (const [i, item] of run.entries()) {
        if (!this.acts(item) || gathered.has(item.envelope.id)) continue;
        gathered.add(item.envelope.id);
        failedAt = i;
        const span = spans && ConsumeSpan.of(item, attempt);
        if (span) {
          spans!.push(span);
          await span.run(() => this.handler(item.envelope, manager, messageContext(item, attempt)));
        } else {
          await this.handler(item.envelope, manager, messageContext(item, attempt));
        }
        failedAt = undefined;
      }
      const fresh = await this.inbox.claimWith(this.dataSource, [...gathered], claimedWrites(manager));
      const outcomes = run.map((item): HandleOutcome => {
        if (!this.acts(item)) return 'ignored';
        // The first copy of an event the claim let through is the one handled; any other is a duplicate.
        if (!fresh.delete(item.envelope.id)) return 'duplicate';
        this.handled(item, attempt);
        return 'handled';
      });
      return { committed: true, outcomes };
    } catch (error) {
      // What the handler gathered is dropped with the run's manager.
      failure = error;
      return { committed: false, failedAt, error };
    } finally {
      if (spans) for (const span of spans) span.end(failure);
    }
  }

  private handled(item: ValidMessage, attempt: number): void {
    this.logger?.debug({ ...item.where, eventId: item.envelope.id, eventType: item.envelope.type, attempt }, 'event handled');
  }

  /** One event in its own transaction (the `attempt`-th try). */
  async one(item: ValidMessage, attempt: number): Promise<HandleOutcome> {
    if (!this.acts(item)) return 'ignored';
    if (this.claimedWrites) {
      const result = await this.runClaimed([item], attempt, this.claimedWrites);
      if (!result.committed) throw result.error;
      return result.outcomes[0]!;
    }
    const handle = () =>
      this.dataSource.transaction(async (manager) => {
        const fresh = await this.inbox.claim(manager, [item.envelope.id]);
        if (fresh.size === 0) return 'duplicate' as const;
        await this.handler(item.envelope, manager, messageContext(item, attempt));
        await this.beforeCommit(manager);
        return 'handled' as const;
      });
    const span = tracingEnabled() ? ConsumeSpan.of(item, attempt) : undefined;
    if (!span) return handle();
    try {
      const outcome = await span.run(async () => {
        const outcome = await handle();
        if (outcome === 'handled') this.handled(item, attempt);
        return outcome;
      });
      span.end();
      return outcome;
    } catch (error) {
      span.end(error);
      throw error;
    }
  }
}
