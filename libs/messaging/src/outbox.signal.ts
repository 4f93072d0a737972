import type { DataSource, EntityManager, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { outboxChannel } from './outbox-channel';

/**
 * How a committed outbox write wakes the relay. NOTIFY in every writing transaction serialises commits:
 * Postgres holds one lock on the notification queue through each notifying commit, WAL flush included (at
 * a few hundred creates per second that lock was where commits waited). So when this process's own relay
 * is the active publisher for the schema, the writer wakes it in process after the commit instead, and
 * sends NOTIFY only when the active relay runs elsewhere.
 */
const localRelays = new Map<string, { active: () => boolean; wake: () => void }>();
const PENDING_WAKE = 'outboxPendingWake';

export function registerLocalRelay(schema: string, relay: { active: () => boolean; wake: () => void }, dataSource: DataSource): () => void {
  localRelays.set(schema, relay);
  if (!dataSource.subscribers.some((s) => s instanceof WakeAfterCommit)) dataSource.subscribers.push(new WakeAfterCommit());
  return () => {
    if (localRelays.get(schema) === relay) localRelays.delete(schema);
  };
}

/** Called inside the writing transaction. */
export async function signalOutboxWrite(manager: EntityManager, schema: string): Promise<void> {
  const local = localRelays.get(schema);
  const runner = manager.queryRunner;
  if (local?.active() && runner) {
    runner.data = { ...(runner.data ?? {}), [PENDING_WAKE]: schema };
    return;
  }
  // Delivered to listeners only when the transaction commits.
  await manager.query('SELECT pg_notify($1, $2)', [outboxChannel(schema), '']);
}

/**
 * The NOTIFY for a write made of one combined statement to run inside it, when this process's relay is not the
 * active one: the write then needs no round trip of its own to wake the relay elsewhere. Undefined when the local
 * relay is active (woken in process after the commit, without the notification queue's lock).
 */
export function outboxNotifyStatement(schema: string): { text: string; params: unknown[] } | undefined {
  if (localRelays.get(schema)?.active()) return undefined;
  return { text: 'SELECT pg_notify($1, $2)', params: [outboxChannel(schema), ''] };
}

/**
 * Called after a write that committed on its own (a single statement outside a transaction); `notified` when the
 * statement carried outboxNotifyStatement's NOTIFY.
 */
export async function signalCommittedOutboxWrite(dataSource: DataSource, schema: string, notified = false): Promise<void> {
  const local = localRelays.get(schema);
  if (local?.active()) {
    local.wake();
    return;
  }
  if (notified) return;
  await dataSource.query('SELECT pg_notify($1, $2)', [outboxChannel(schema), '']);
}

class WakeAfterCommit implements EntitySubscriberInterface {
  afterTransactionCommit(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as Record<string, unknown> | undefined;
    const schema = data?.[PENDING_WAKE];
    if (typeof schema !== 'string') return;
    delete data![PENDING_WAKE];
    localRelays.get(schema)?.wake();
  }
}
