import type { SqlStatement } from '@payments/database';
import type { EventEnvelope } from '@payments/events';
import type { EntityManager } from 'typeorm';
import type { ValidMessage } from './consumer-message.decoder';

export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /** Kafka timestamp of the message (ms since epoch, as a string): when the relay sent it. */
  timestamp: string;
  headers: Record<string, string>;
  /** 1 on the first try, then 2, 3, ... while the handler is retried. */
  attempt: number;
}

/**
 * Applies one event. Runs inside the transaction that records it in the inbox: use `manager` for every write.
 * Several events of one partition share a transaction; if any of them fails, all of them are rolled back and
 * handled again one per transaction, so a handler may run more than once for an event whose effect commits once.
 */
export type EventHandler = (envelope: EventEnvelope, manager: EntityManager, ctx: MessageContext) => Promise<void>;

/**
 * Runs once per transaction, after the handler has seen each of its events and before it commits: for handlers
 * that gather their writes and make them in one statement. If it fails, the transaction's events are handled
 * again one per transaction, as when a handler fails.
 */
export type BeforeCommit = (manager: EntityManager) => Promise<void>;

/**
 * Instead of BeforeCommit, for a handler whose writes for a run are one statement: that statement's data-modifying
 * CTEs (`name AS (…), …`, placeholders from $1), which read `claimed(event_id)`, the run's events not handled
 * before, and write only for those. The consumer runs them and the inbox claim as one statement with no transaction
 * around it (a statement is atomic on its own): one round trip where BEGIN, the claim, the writes and COMMIT took
 * four. `handle` then only gathers: it is called for each event with a manager outside any transaction, whose
 * writes would not be undone with the run's; null when there is nothing to write (the claim still runs).
 */
export type ClaimedWrites = (manager: EntityManager) => SqlStatement | null;

/**
 * What became of an event: handled (its effect committed with its inbox row), duplicate (its inbox row was there),
 * or ignored (a type the consumer does not act on: acknowledged without a transaction or an inbox row).
 */
export type HandleOutcome = 'handled' | 'duplicate' | 'ignored';

/**
 * Thrown by a handler for an event that can never apply as it is (e.g. amounts that disagree): the event is parked
 * on the dead-letter topic at once with this reason, without the retries a passing failure gets.
 */
export class EventRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventRefused';
  }
}

/** What a handler is told of the message it applies. */
export function messageContext(item: ValidMessage, attempt: number): MessageContext {
  return {
    ...item.where,
    key: item.message.key?.toString('utf8') ?? null,
    timestamp: item.message.timestamp,
    headers: item.headers,
    attempt,
  };
}
