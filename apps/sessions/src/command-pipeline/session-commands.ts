import { Logger } from '@nestjs/common';
import type { SqlStatement } from '@payments/database';
import { newEnvelope, type EventEnvelope, type PublicEventType } from '@payments/events';
import { isConcurrencyError } from '../event-store/concurrency.error';
import { paymentEventData } from '../payments/payment-record';
import { handledCommand, type EventMetadata, type StreamScope } from '../event-store/event-store';
import type { Clock } from '../shared/clock';
import { eventMetadata } from '../shared/event-metadata';
import { commandConflicts } from '../shared/sessions-metrics';
import { IdempotencyKeyReusedError, SessionNotFoundError } from './command-errors';
import type { SessionAggregate, SessionKind } from './session-kind';
import type { ExistingClaim, SessionStore, SessionWrite, Transaction } from './session-store';

/** Who sent a command: its correlation id, and its command id (a command sent again is not acted on twice). */
export interface CommandCaller {
  readonly correlationId: string;
  readonly commandId?: string;
}

/** A create: the new object's id, the idempotency key that names it, and the request's fingerprint. */
export interface CreateRequest {
  readonly id: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly correlationId: string;
}

/** More to a change than its events (see SessionCommands.changeWith). */
export interface ChangeOptions<A> {
  /**
   * The aggregate as the caller already loaded it (its stream is not read again): decided on first, the write's
   * version check turns a stale one into a lost race, and the retry loads the stream. Only for a command whose id
   * cannot be among the events up to that version (a command not sent before it).
   */
  readonly from?: A;
  /**
   * Rows of the caller's written in the same statement as the change (one commit: both or neither), or alone when
   * the decision has no events, and also when the command was handled before (so they must be safe to write twice).
   * Called once per try, after `decide`.
   */
  readonly with?: () => readonly SqlStatement[];
}

/** Attempts of one command before a conflict reaches the caller (each one re-reads and re-decides). */
const MAX_ATTEMPTS = 6;

/**
 * The one command pipeline of sessions, for every kind of session: load the stream, let the aggregate decide,
 * fold the decision once (state, resource, public events, payment), and write it all in one atomic write; a
 * command that lost a race to another runs again from the load. Use cases (one file per action) say only what
 * to decide.
 */
export class SessionCommands<A extends SessionAggregate<S, E, A>, S, E extends { readonly type: string; readonly data: unknown }, R, Allocation = undefined> {
  private readonly logger = new Logger('SessionCommands');

  constructor(
    readonly kind: SessionKind<A, S, E, R>,
    private readonly store: SessionStore<S, E, R, Allocation>,
    private readonly clock: Clock,
    private readonly idempotencyTtlSeconds: number,
  ) {}

  async get(scope: StreamScope, id: string): Promise<R> {
    const resource = this.kind.environmentOf(id) === scope.environment ? await this.store.findResource(scope, id) : null;
    if (resource === null) throw new SessionNotFoundError(this.kind.label, id);
    return this.kind.renderStoredAt(resource, this.clock.now());
  }

  /**
   * Creates a new stream under an idempotency key, or answers the object the key already made (also when this
   * request would now be refused: a retry gets the first answer).
   */
  async create(scope: StreamScope, request: CreateRequest, decide: (allocation: Allocation, now: Date) => E[]): Promise<R> {
    const now = this.clock.now();
    const metadata = eventMetadata(scope, request.correlationId);
    const claim = { scope, key: request.key, fingerprint: request.fingerprint, objectType: this.kind.objectType, objectId: request.id };
    let outcome: Awaited<ReturnType<SessionStore<S, E, R, Allocation>['create']>>;
    try {
      outcome = await this.retrying(() =>
        this.store.create(claim, (allocation) => this.decided(null, scope, decide(allocation, now), now, metadata), this.expiredBefore(now)),
      );
    } catch (error) {
      const existing = await this.store.findClaim(scope, request.key);
      if (existing === null || existing.createdAt < this.expiredBefore(now)) throw error;
      return this.replay(scope, existing, request.fingerprint, now);
    }
    if (outcome.created) return outcome.write.resource;
    return this.replay(scope, outcome.claim, request.fingerprint, now);
  }

  /** The aggregate as its stream folds now (for a use case that decides from more than a command's input). */
  async aggregateOf(scope: StreamScope, id: string): Promise<A> {
    if (this.kind.environmentOf(id) !== scope.environment) throw new SessionNotFoundError(this.kind.label, id);
    return (await this.load(scope, id)).aggregate;
  }

  /** The aggregate folded from a stream its caller read (see aggregateOf); not found when it is empty. */
  aggregateFrom(scope: StreamScope, id: string, events: readonly E[]): A {
    if (this.kind.environmentOf(id) !== scope.environment || events.length === 0) throw new SessionNotFoundError(this.kind.label, id);
    return this.kind.fromEvents(events);
  }

  /** Changes an existing stream: `decide` answers the events (none: nothing to do). */
  async change(scope: StreamScope, id: string, caller: CommandCaller, decide: (aggregate: A, now: Date) => E[]): Promise<R> {
    return (await this.changeWith(scope, id, caller, decide)).resource;
  }

  /** A change with options (see ChangeOptions); answers the resource and the aggregate after it. */
  async changeWith(scope: StreamScope, id: string, caller: CommandCaller, decide: (aggregate: A, now: Date) => E[], options: ChangeOptions<A> = {}): Promise<{ resource: R; aggregate: A }> {
    if (this.kind.environmentOf(id) !== scope.environment) throw new SessionNotFoundError(this.kind.label, id);
    let from = options.from;
    return this.retrying(async () => {
      const now = this.clock.now();
      const { aggregate, handled } = from ? { aggregate: from, handled: false } : await this.load(scope, id, caller.commandId);
      // A lost race decides again from the stream as it is now.
      from = undefined;
      const alone = async () => {
        const statements = options.with?.() ?? [];
        if (statements.length > 0) await this.store.writeAlone(statements);
        return { resource: this.kind.render(aggregate.state, now), aggregate };
      };
      // Sent again after its answer was lost: what it did is already written.
      if (handled) return alone();
      const events = decide(aggregate, now);
      if (events.length === 0) return alone();
      const write = this.decided(aggregate, scope, events, now, eventMetadata(scope, caller.correlationId, caller.commandId));
      await this.store.write(write, undefined, options.with?.() ?? []);
      return { resource: write.resource, aggregate: aggregate.apply(events) };
    });
  }

  /** The caller's statements of a step that changes no session (see ChangeOptions.with), in one statement. */
  async writeAlone(statements: readonly SqlStatement[]): Promise<void> {
    await this.store.writeAlone(statements);
  }

  /** Expires a session the expiry job has locked, in its transaction; false when it is final already. */
  async expire(scope: StreamScope, id: string, now: Date, correlationId: string, within: Transaction): Promise<boolean> {
    const { aggregate } = await this.load(scope, id, undefined, within);
    if (this.kind.isFinal(aggregate.state)) return false;
    await this.store.write(this.decided(aggregate, scope, aggregate.expire(now), now, eventMetadata(scope, correlationId)), within);
    return true;
  }

  /**
   * A decision, folded once: the state after each event (for its public event), the resource after all of them
   * (the read model's row, the answer and the last public event's object), and the payment it made.
   */
  decided(before: A | null, scope: StreamScope, events: readonly E[], now: Date, metadata: EventMetadata): SessionWrite<S, E, R> {
    return foldDecision(this.kind, before, scope, events, now, metadata);
  }

  private async load(scope: StreamScope, id: string, commandId?: string, within?: Transaction): Promise<{ aggregate: A; handled: boolean }> {
    const stream = await this.store.loadStream(scope, id, within);
    if (stream.length === 0) throw new SessionNotFoundError(this.kind.label, id);
    return { aggregate: this.kind.fromEvents(stream.map((stored) => stored.event)), handled: handledCommand(stream, commandId) };
  }

  private async replay(scope: StreamScope, claim: ExistingClaim, fingerprint: string, now: Date): Promise<R> {
    if (claim.objectType !== this.kind.objectType || claim.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
    const resource = await this.store.findResource(scope, claim.objectId);
    if (resource === null) throw new Error(`idempotency key points at missing ${this.kind.label} ${claim.objectId}`);
    return this.kind.renderStoredAt(resource, now);
  }

  private expiredBefore(now: Date): Date {
    return new Date(now.getTime() - this.idempotencyTtlSeconds * 1000);
  }

  /** Runs `attempt` again (from its first read) while it loses races with other commands, up to MAX_ATTEMPTS. */
  private async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n += 1) {
      try {
        return await attempt();
      } catch (error) {
        if (!isConcurrencyError(error) || n >= MAX_ATTEMPTS) throw error;
        commandConflicts.inc();
        this.logger.debug({ attempt: n, reason: error.message }, 'command lost a race; retrying');
        // A little random wait so two retrying commands do not collide again in lockstep.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10 * n)));
      }
    }
  }
}

/** See SessionCommands.decided; a function of its own so public events can be checked without a store. */
export function foldDecision<A extends SessionAggregate<S, E, A>, S, E extends { readonly type: string }, R>(
  kind: SessionKind<A, S, E, R>,
  before: A | null,
  scope: StreamScope,
  events: readonly E[],
  now: Date,
  metadata: EventMetadata,
): SessionWrite<S, E, R> {
  if (events.length === 0) throw new Error('a decision without events writes nothing');
  const published: Array<{ type: PublicEventType; paid: boolean; after: A }> = [];
  let current = before;
  for (const event of events) {
    current = current === null ? kind.fromEvents([event]) : current.apply([event]);
    const type = kind.publicType(event, current.state);
    if (type !== null) published.push({ type, paid: kind.completesPayment(event), after: current });
  }
  const after = current!;
  const resource = kind.render(after.state, now);
  const payment = events.some((event) => kind.completesPayment(event)) ? kind.paymentOf(after.state) : null;
  const envelopes: EventEnvelope<unknown>[] = published.map(({ type, paid, after: at }) =>
    newEnvelope({
      type,
      aggregate_id: at.id,
      aggregate_type: kind.objectType,
      sequence: at.version,
      merchant_id: metadata.merchant_id,
      environment: metadata.environment,
      correlation_id: metadata.correlation_id,
      causation_id: metadata.causation_id,
      occurred_at: now,
      // The object as GET shows it right after the event; the last one is the resource itself.
      data: { object: at === after ? resource : kind.render(at.state, now), ...(paid ? { payment: paymentEventData(kind.paymentOf(at.state)) } : {}) },
    }),
  );
  return {
    scope,
    id: after.id,
    expectedVersion: before?.version ?? 0,
    events,
    metadata,
    now,
    state: after.state,
    resource,
    payment,
    envelopes,
  };
}
