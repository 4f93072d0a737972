import { Injectable, Logger } from '@nestjs/common';
import { eventTypes, type EventEnvelope } from '@payments/events';
import { renderWebhook } from '@payments/webhooks';
import type { EntityManager } from 'typeorm';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { EventsRepository, type StoredEvent } from './events.repository';

export type PublicEventOutcome = { stored: false } | { stored: true; deliveries: number };

/**
 * Turns each public event (sessions and refunds streams) into what merchants receive: the event with its
 * rendered body, and one first-send delivery per active endpoint of the merchant and environment that takes
 * its type and was created at or before the event occurred. Runs in the consumer's inbox transaction, so a
 * re-delivered Kafka message has no second effect; the (endpoint, event) unique key backs that up. Bodies are
 * rendered once, so every attempt sends the same bytes; they are signed at send time (secrets roll).
 */
@Injectable()
export class PublicEventsHandler {
  private readonly logger = new Logger('PublicEvents');

  constructor(
    private readonly events: EventsRepository,
    private readonly deliveries: DeliveriesRepository,
  ) {}

  async handle(envelope: EventEnvelope, manager: EntityManager): Promise<PublicEventOutcome> {
    // Internal events on these streams are not for merchants.
    if (!eventTypes.get(envelope.type, envelope.schema_version)?.public) return { stored: false };
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
    };
    const outcome = await this.deliveries.storeAndScheduleFirstSends(manager, this.events.insertStatement(event), event);
    if (!outcome.stored) this.logger.debug({ eventId: envelope.id }, 'event already stored; no new deliveries');
    return outcome;
  }
}
