import { Injectable, Logger } from '@nestjs/common';
import { eventTypes, type EventEnvelope } from '@payments/events';
import { traceHeadersOf, tracingEnabled } from '@payments/tracing';
import type { SqlStatement } from '@payments/database';
import { renderWebhook } from '@payments/webhooks';
import type { EntityManager } from 'typeorm';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import type { StoredEvent } from './events.repository';

export type PublicEventOutcome = { stored: false } | { stored: true; deliveries: number };

/**
 * Turns each public event (sessions and refunds streams) into what merchants receive: the event with its
 * rendered body, and one first-send delivery per active endpoint of the merchant and environment that takes
 * its type and was created at or before the event occurred. Runs in the consumer's inbox transaction, so a
 * re-delivered Kafka message has no second effect; the event's key and the (endpoint, event) unique key back
 * that up. Bodies are rendered once, so every attempt sends the same bytes; they are signed at send time
 * (secrets roll). `handle` renders each event of a run; `claimedWrites` stores them all and schedules their
 * first sends in the statement of the consumer's inbox claim (one round trip for the run, no transaction around
 * it); `beforeCommit` does the same inside a caller's transaction.
 */
@Injectable()
export class PublicEventsHandler {
  private readonly logger = new Logger('PublicEvents');
  /** Events rendered in each open transaction, in order, by its EntityManager (dropped with it if it fails). */
  private readonly pending = new WeakMap<EntityManager, StoredEvent[]>();

  constructor(private readonly deliveries: DeliveriesRepository) {}

  async handle(envelope: EventEnvelope, manager: EntityManager): Promise<void> {
    // Internal events on these streams are not for merchants.
    if (!eventTypes.get(envelope.type, envelope.schema_version)?.public) return;
    const rendered = renderWebhook(envelope);
    const event: StoredEvent = {
      id: envelope.id,
      merchantId: envelope.merchant_id,
      environment: envelope.environment,
      type: envelope.type,
      aggregateId: envelope.aggregate_id,
      sequence: envelope.sequence,
      occurredAt: envelope.occurred_at,
      scheme: rendered.scheme,
      body: rendered.body,
      // Handled within the event's consumer span: the deliveries, made later by the worker, continue its trace.
      traceContext: tracingEnabled() ? traceContextJson() : null,
    };
    const pending = this.pending.get(manager);
    if (!pending) this.pending.set(manager, [event]);
    // The inbox lets one copy of an event through per transaction; a second is not stored twice either way.
    else if (!pending.some((e) => e.id === event.id)) pending.push(event);
  }

  /** The run's events stored and their first sends scheduled, as writes made with the inbox claim (see ClaimedWrites). */
  claimedWrites(manager: EntityManager): SqlStatement | null {
    const events = this.pending.get(manager);
    if (!events) return null;
    this.pending.delete(manager);
    return this.deliveries.firstSendsWrites(events, { onlyClaimed: true });
  }

  /** Stores the transaction's events; answers each one's outcome by event id (none for an event not public). */
  async beforeCommit(manager: EntityManager): Promise<Map<string, PublicEventOutcome>> {
    const events = this.pending.get(manager);
    if (!events) return new Map();
    this.pending.delete(manager);
    const outcomes = await this.deliveries.storeAndScheduleFirstSends(manager, events);
    const repeated = [...outcomes].filter(([, outcome]) => !outcome.stored).map(([id]) => id);
    if (repeated.length > 0) this.logger.debug({ eventIds: repeated }, 'events already stored; no new deliveries');
    return outcomes as Map<string, PublicEventOutcome>;
  }
}

function traceContextJson(): string | null {
  const headers = traceHeadersOf();
  return headers ? JSON.stringify(headers) : null;
}
