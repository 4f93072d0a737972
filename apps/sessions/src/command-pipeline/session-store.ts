import type { SqlStatement } from '@payments/database';
import type { EventEnvelope } from '@payments/events';
import type { EventMetadata, StoredEvent, StreamScope } from '../event-store/event-store';
import type { PaymentRecord } from '../payments/payment-record';

/** Everything one decided change writes, together or not at all. */
export interface SessionWrite<S, E, R> {
  readonly scope: StreamScope;
  readonly id: string;
  /** The stream version the change was decided on; 0 for a new stream. */
  readonly expectedVersion: number;
  readonly events: readonly E[];
  readonly metadata: EventMetadata;
  readonly now: Date;
  /** State and resource after the events (the read model's row). */
  readonly state: S;
  readonly resource: R;
  readonly payment: PaymentRecord | null;
  readonly envelopes: readonly EventEnvelope<unknown>[];
}

/** An idempotency key's claim on the object a create makes. */
export interface KeyClaim {
  readonly scope: StreamScope;
  readonly key: string;
  readonly fingerprint: string;
  readonly objectType: 'payment_intent' | 'invoice';
  readonly objectId: string;
}

/** A key already holding an object. */
export interface ExistingClaim {
  readonly objectType: 'payment_intent' | 'invoice';
  readonly objectId: string;
  readonly fingerprint: string;
  readonly createdAt: Date;
}

/** A transaction the caller already holds (the expiry job's); opaque to the pipeline. */
export type Transaction = { readonly __transaction: unique symbol };

/**
 * Where one kind of session is kept: its event streams, read-model rows, payments and outbox rows. Postgres in the
 * service (persistence/postgres-session-store.ts); in memory for use-case tests.
 */
export interface SessionStore<S, E extends { readonly type: string; readonly data: unknown }, R, Allocation = undefined> {
  /** The stream, oldest first; empty when there is none in `scope`. */
  loadStream(scope: StreamScope, id: string, within?: Transaction): Promise<StoredEvent<E>[]>;
  findResource(scope: StreamScope, id: string): Promise<R | null>;
  /**
   * Writes a change to an existing stream; a ConcurrencyError when the stream moved past `expectedVersion`. `also`:
   * the caller's statements, written in the same statement (any of them failing fails the whole change).
   */
  write(change: SessionWrite<S, E, R>, within?: Transaction, also?: readonly SqlStatement[]): Promise<void>;
  /** The caller's statements of a change that wrote no events, in one statement. */
  writeAlone(statements: readonly SqlStatement[]): Promise<void>;
  /**
   * Claims the key and writes the new stream `build` decides, given what the store allocates with it (an invoice
   * number); or answers the claim already on the key. A claim older than `expiredBefore` no longer counts.
   */
  create(
    claim: KeyClaim,
    build: (allocation: Allocation) => SessionWrite<S, E, R>,
    expiredBefore: Date,
  ): Promise<{ created: true; write: SessionWrite<S, E, R> } | { created: false; claim: ExistingClaim }>;
  /** The claim a key holds now, if any (also one past the retention). */
  findClaim(scope: StreamScope, key: string): Promise<ExistingClaim | null>;
}
