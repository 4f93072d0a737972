import { combineStatements, executePrepared, postgresErrorCode, type SqlStatement } from '@payments/database';
import { TurnBatcher } from '@payments/messaging';
import type { EntityManager } from 'typeorm';
import type { ExistingClaim, KeyClaim, SessionStore, SessionWrite, Transaction } from '../command-pipeline/session-store';
import { ConcurrencyError, isConcurrencyError } from '../event-store/concurrency.error';
import { isStreamVersionClash, isUniqueViolation, type StoredEvent, type StreamScope } from '../event-store/event-store';
import { IDEMPOTENCY_KEY_CONSTRAINT, type IdempotencyKeysRepository } from '../idempotency/idempotency-keys.repository';
import type { PaymentsRepository } from '../payments/payments.repository';
import type { SessionsDatabase } from '../shared/sessions-database';
import { createGroupSize } from './create-group-size';
import type { SessionReadModel, SessionRow } from './session-read-model';

/**
 * Sessions of one kind in Postgres. A change is one combined statement (read-model update first, then events,
 * payment and outbox rows): one round trip, atomic without BEGIN/COMMIT. A create without an allocation is one
 * statement too, with the key's claim; one that allocates (an invoice number) runs in a transaction that claims
 * the key first, so a repeated create never takes a number it will not use.
 *
 * Creates that arrive together are written together (group commit): the statements of every create submitted in
 * one event-loop turn, or while the previous group was being written, go to Postgres as one combined statement —
 * one round trip, one commit and one WAL flush for the group instead of one each. A group has one of a few sizes up
 * to 64 creates, within Postgres' bind parameters (createGroupSize); the rest wait for the next group, so a backlog
 * (after a stall) goes out as a run of full groups. A statement is atomic, so if any
 * create of the group fails (its key claimed meanwhile, say), nothing of the group is written and each create is
 * written again on its own, to succeed or fail by itself.
 */
export class PostgresSessionStore<S extends SessionRow, E extends { readonly type: string; readonly data: unknown }, R, Allocation = undefined>
  implements SessionStore<S, E, R, Allocation>
{
  constructor(
    private readonly db: SessionsDatabase,
    private readonly readModel: SessionReadModel<S, R>,
    private readonly payments: PaymentsRepository,
    private readonly idempotency: IdempotencyKeysRepository,
    /** Allocates, in the creating transaction, what a new session needs from the database (an invoice number). */
    private readonly allocate?: (manager: EntityManager, scope: StreamScope) => Promise<Allocation>,
  ) {}

  private readonly creates = new TurnBatcher<readonly SqlStatement[], { error?: unknown; notified?: boolean }>((group) => this.writeCreates(group), createGroupSize);

  loadStream(scope: StreamScope, id: string, within?: Transaction): Promise<StoredEvent<E>[]> {
    return this.db.events.load<E>(managerOf(within) ?? this.db.dataSource.manager, scope, id);
  }

  findResource(scope: StreamScope, id: string): Promise<R | null> {
    return this.readModel.findResource(this.db.dataSource.manager, scope, id);
  }

  async write(change: SessionWrite<S, E, R>, within?: Transaction, also: readonly SqlStatement[] = []): Promise<void> {
    const parts = [
      // The update as CTE s1, read by the main query so that it runs before the others: it takes the row lock before
      // any event is appended, the order the expiry job's transactions also follow, so the two never deadlock. A
      // stale decision appends at a (stream, version) already taken, and the whole statement fails.
      this.readModel.updateStatement(change.state, change.resource, change.expectedVersion, change.now),
      ...this.rest(change),
      // The caller's rows (a wallet attempt opened or resolved with the change): one commit for both.
      ...also,
    ];
    const manager = managerOf(within);
    // Outside a transaction, a relay running elsewhere is woken by a NOTIFY within the statement itself.
    const notify = manager ? undefined : this.db.outbox.notifyStatement();
    const statement = combineStatements([
      ...parts,
      notify
        ? { text: 'SELECT (SELECT count(*)::int FROM s1) AS updated, pg_notify($1, $2)::text AS notified', params: notify.params }
        : { text: 'SELECT count(*)::int AS updated FROM s1', params: [] },
    ]);
    try {
      if (manager) {
        await manager.query(statement.text, statement.params as unknown[]);
        await this.db.outbox.committedIn(manager);
      } else {
        await executePrepared(this.db.dataSource, statement);
        await this.db.outbox.committed(this.db.dataSource, notify !== undefined);
      }
    } catch (error) {
      throw conflictOf(error, change);
    }
  }

  async writeAlone(statements: readonly SqlStatement[]): Promise<void> {
    await executePrepared(this.db.dataSource, combineStatements(statements));
  }

  async create(
    claim: KeyClaim,
    build: (allocation: Allocation) => SessionWrite<S, E, R>,
    expiredBefore: Date,
    releasedExpired = false,
  ): Promise<{ created: true; write: SessionWrite<S, E, R> } | { created: false; claim: ExistingClaim }> {
    if (this.allocate) return this.createAllocating(claim, build, expiredBefore, this.allocate);
    const write = build(undefined as Allocation);
    const { error, notified } = await this.creates.submit([
      this.idempotency.claimStatement(claim.scope, claim.key, claim.objectType, claim.objectId, claim.fingerprint),
      ...this.insert(write),
    ]);
    if (error !== undefined) {
      if (!isUniqueViolation(error, IDEMPOTENCY_KEY_CONSTRAINT)) throw conflictOf(error, write);
      const existing = await this.findClaim(claim.scope, claim.key);
      if (existing === null) throw new ConcurrencyError(claim.objectId, 0); // released meanwhile: claim again
      // A claim past the retention no longer counts: released, and this create claims the key (once).
      if (existing.createdAt >= expiredBefore || releasedExpired) return { created: false, claim: existing };
      await this.idempotency.releaseExpired(this.db.dataSource.manager, claim.scope, claim.key, expiredBefore);
      return this.create(claim, build, expiredBefore, true);
    }
    await this.db.outbox.committed(this.db.dataSource, notified);
    return { created: true, write };
  }

  /**
   * Writes a group of creates (each a list of statements that do not refer to one another) as one statement; if that
   * fails, each on its own. Answers each create's error, if it had one.
   */
  private async writeCreates(group: ReadonlyArray<readonly SqlStatement[]>): Promise<Array<{ error?: unknown; notified?: boolean }>> {
    // A relay running elsewhere is woken by one NOTIFY within the group's statement (the last, so that it runs).
    const notify = this.db.outbox.notifyStatement();
    const alone = (statements: readonly SqlStatement[]): Promise<{ error?: unknown; notified?: boolean }> =>
      executePrepared(this.db.dataSource, combineStatements(notify ? [...statements, notify] : statements)).then(
        () => ({ notified: notify !== undefined }),
        (error: unknown) => ({ error }),
      );
    if (group.length === 1) return [await alone(group[0]!)];
    const together = await alone(group.flat());
    return together.error === undefined ? group.map(() => together) : Promise.all(group.map(alone));
  }

  findClaim(scope: StreamScope, key: string): Promise<ExistingClaim | null> {
    return this.idempotency.find(this.db.dataSource.manager, scope, key);
  }

  private async createAllocating(
    claim: KeyClaim,
    build: (allocation: Allocation) => SessionWrite<S, E, R>,
    expiredBefore: Date,
    allocate: (manager: EntityManager, scope: StreamScope) => Promise<Allocation>,
  ): Promise<{ created: true; write: SessionWrite<S, E, R> } | { created: false; claim: ExistingClaim }> {
    const outcome = await this.db.dataSource.transaction(async (manager) => {
      const claimed = await this.idempotency.claim(manager, claim.scope, claim.key, claim.objectType, claim.objectId, claim.fingerprint, expiredBefore);
      if (!claimed.claimed) return { created: false as const, claim: claimed };
      const write = build(await allocate(manager, claim.scope));
      const statement = combineStatements(this.insert(write));
      await manager.query(statement.text, statement.params as unknown[]);
      await this.db.outbox.committedIn(manager);
      return { created: true as const, write };
    });
    return outcome;
  }

  private insert(write: SessionWrite<S, E, R>): SqlStatement[] {
    return [this.readModel.insertStatement(write.state, write.resource, write.now), ...this.rest(write)];
  }

  /** Events, then the payment (when one was made), then the outbox rows. */
  private rest(change: SessionWrite<S, E, R>): SqlStatement[] {
    const statements = [this.db.events.appendStatement(change.id, change.expectedVersion, change.events, change.metadata, change.now)];
    if (change.payment !== null) statements.push(this.payments.insertStatement(change.payment));
    // A change merchants do not see (a deposit address given, a reversal recorded) has no public event.
    if (change.envelopes.length > 0) statements.push(this.db.outbox.appendStatement(this.db.eventsTopic, change.envelopes));
    return statements;
  }
}

function managerOf(within: Transaction | undefined): EntityManager | undefined {
  return within as unknown as EntityManager | undefined;
}

/**
 * A lost race (stale version, deadlock) as the pipeline's ConcurrencyError; anything else as it is. A session is paid
 * once, so a payment its source has already is a change the decision did not see: its insert may fail before the
 * event's version clash does (the statement stops at the first violation).
 */
function conflictOf(error: unknown, change: { id: string; expectedVersion: number }): unknown {
  if (isConcurrencyError(error)) return error;
  const deadlock = postgresErrorCode(error) === '40P01';
  const stale = isStreamVersionClash(error) || isUniqueViolation(error, PAYMENT_SOURCE_CONSTRAINT);
  return stale || deadlock ? new ConcurrencyError(change.id, change.expectedVersion) : error;
}

const PAYMENT_SOURCE_CONSTRAINT = 'payments_source_key';

/** The pipeline's handle on a transaction the caller holds (the expiry job's). */
export function transactionOf(manager: EntityManager): Transaction {
  return manager as unknown as Transaction;
}
