// A SessionStore in memory, for use-case tests without Postgres. It keeps the store's promises: a change written
// on a stale version is a ConcurrencyError, a create under a taken key answers the claim, and a write is all or
// nothing.
import type { SqlStatement } from '@payments/database';
import { ConcurrencyError } from '../../event-store/concurrency.error';
import type { StoredEvent, StreamScope } from '../../event-store/event-store';
import type { PaymentRecord } from '../../payments/payment-record';
import type { ExistingClaim, KeyClaim, SessionStore, SessionWrite } from '../session-store';

const scoped = (scope: StreamScope, id: string) => `${scope.merchantId}/${scope.environment}/${id}`;

export class InMemorySessionStore<S, E extends { readonly type: string; readonly data: unknown }, R, Allocation = undefined>
  implements SessionStore<S, E, R, Allocation>
{
  readonly streams = new Map<string, StoredEvent<E>[]>();
  readonly resources = new Map<string, R>();
  readonly claims = new Map<string, ExistingClaim>();
  readonly payments: PaymentRecord[] = [];
  readonly outbox: unknown[] = [];
  private position = 0;
  /** Runs once, just before the next write: a concurrent command's change landing in between. */
  beforeNextWrite?: () => Promise<unknown>;

  constructor(private readonly allocate: () => Allocation = () => undefined as Allocation) {}

  async loadStream(scope: StreamScope, id: string): Promise<StoredEvent<E>[]> {
    return [...(this.streams.get(scoped(scope, id)) ?? [])];
  }

  async findResource(scope: StreamScope, id: string): Promise<R | null> {
    return this.resources.get(scoped(scope, id)) ?? null;
  }

  async write(change: SessionWrite<S, E, R>, _within?: unknown, also: readonly SqlStatement[] = []): Promise<void> {
    if (also.length > 0) throw new Error('the in-memory store runs no SQL: test a change with statements against Postgres');
    const interleaved = this.beforeNextWrite;
    this.beforeNextWrite = undefined;
    await interleaved?.();
    const stream = this.streams.get(scoped(change.scope, change.id)) ?? [];
    if (stream.length !== change.expectedVersion) throw new ConcurrencyError(change.id, change.expectedVersion);
    this.apply(change, stream);
  }

  async writeAlone(): Promise<void> {
    throw new Error('the in-memory store runs no SQL: test a change with statements against Postgres');
  }

  async create(
    claim: KeyClaim,
    build: (allocation: Allocation) => SessionWrite<S, E, R>,
    expiredBefore: Date,
  ): Promise<{ created: true; write: SessionWrite<S, E, R> } | { created: false; claim: ExistingClaim }> {
    const key = scoped(claim.scope, claim.key);
    const existing = this.claims.get(key);
    if (existing && existing.createdAt >= expiredBefore) return { created: false, claim: existing };
    const write = build(this.allocate());
    this.claims.set(key, { objectType: claim.objectType, objectId: claim.objectId, fingerprint: claim.fingerprint, createdAt: write.now });
    this.apply(write, []);
    return { created: true, write };
  }

  async findClaim(scope: StreamScope, key: string): Promise<ExistingClaim | null> {
    return this.claims.get(scoped(scope, key)) ?? null;
  }

  private apply(change: SessionWrite<S, E, R>, stream: StoredEvent<E>[]): void {
    const appended = change.events.map((event, i) => ({
      position: String((this.position += 1)),
      streamId: change.id,
      version: change.expectedVersion + i + 1,
      event,
      metadata: change.metadata,
      occurredAt: change.now,
    }));
    this.streams.set(scoped(change.scope, change.id), [...stream, ...appended]);
    this.resources.set(scoped(change.scope, change.id), change.resource);
    if (change.payment) this.payments.push(change.payment);
    this.outbox.push(...change.envelopes);
  }
}
