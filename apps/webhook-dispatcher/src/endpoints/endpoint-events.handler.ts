import { Injectable, Logger } from '@nestjs/common';
import type { WebhookEndpointSnapshot } from '@payments/contracts';
import { GATEWAY_EVENT_TYPES, type EventEnvelope } from '@payments/events';
import type { EntityManager } from 'typeorm';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { EventsRepository } from '../events/events.repository';
import { EVENT_TRANSACTION_MARGIN_MS, isActive, type EndpointRow } from '../shared/endpoint-row';
import { WebhooksDatabase } from '../shared/webhooks-database';
import type { CatchUpSweep } from './catch-up.sweep';
import { EndpointsRepository } from './endpoints.repository';

export type EndpointEventOutcome = 'applied' | 'stale' | 'ignored';

/** Whether a new event filter takes a type the old one did not (null takes every type). */
function takesMore(before: string[] | null, after: string[] | null): boolean {
  if (before === null) return false;
  return after === null || after.some((type) => !before.includes(type));
}

/**
 * Keeps the dispatcher's copy of each endpoint from the gateway's `webhook_endpoint.*` events. An event older
 * than the stored version (sequence) is ignored. An endpoint that stops being active has its pending deliveries
 * ended; one that becomes active again gets what it missed meanwhile replayed. A newer enabled snapshot also
 * lifts the dispatcher's own disabling (410 or failing for days): re-enabling is the merchant's word that the
 * receiver works again. Endpoint and payment events come on different topics and consumer groups, so a payment's
 * events may be here before the endpoint change they were meant for (a relay in backoff, a rebalance, clocks
 * apart): an endpoint seen for the first time catches up from its creation, and event types added to an active
 * one catch up from the change. A payment event stored while a first sight or a widening (enabled again, types
 * added) is in flight is seen by neither; the catch-up sweep asked for here closes that within seconds.
 */
@Injectable()
export class EndpointEventsHandler {
  private readonly logger = new Logger('EndpointEvents');

  constructor(
    private readonly db: WebhooksDatabase,
    private readonly endpoints: EndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly events: EventsRepository,
    private readonly catchUp: Pick<CatchUpSweep, 'soon'>,
  ) {}

  async handle(envelope: EventEnvelope, manager: EntityManager): Promise<EndpointEventOutcome> {
    if (!(envelope.type in GATEWAY_EVENT_TYPES) || !envelope.type.startsWith('webhook_endpoint.')) return 'ignored';
    const snapshot = envelope.data as unknown as WebhookEndpointSnapshot;
    if (snapshot.id !== envelope.aggregate_id || snapshot.merchant_id !== envelope.merchant_id || snapshot.environment !== envelope.environment) {
      throw new Error(`endpoint event ${envelope.id}: data does not match the envelope's aggregate, merchant or environment`);
    }

    const existing = await this.endpoints.find(manager, snapshot.id, true);
    if (existing && existing.sequence >= envelope.sequence) {
      this.logger.debug({ endpoint: snapshot.id, stored: existing.sequence, got: envelope.sequence }, 'older endpoint event ignored');
      return 'stale';
    }

    // The database's clock, the one events' received_at is stamped with (replays compare the two).
    const [{ now }] = (await manager.query('SELECT now() AS now')) as [{ now: Date }];
    const deleted = envelope.type === 'webhook_endpoint.deleted';
    const enabled = !deleted && snapshot.status === 'enabled';
    const next: Pick<EndpointRow, 'status' | 'deleted_at' | 'auto_disabled_at' | 'auto_disabled_reason' | 'inactive_since' | 'sequence'> = {
      status: snapshot.status,
      sequence: envelope.sequence,
      deleted_at: deleted ? (existing?.deleted_at ?? now) : null,
      auto_disabled_at: enabled ? null : (existing?.auto_disabled_at ?? null),
      auto_disabled_reason: enabled ? null : (existing?.auto_disabled_reason ?? null),
      inactive_since: existing?.inactive_since ?? null,
    };
    const wasActive = existing !== null && isActive(existing);
    const nowActive = isActive(next);
    // First seen inactive: when it is enabled, everything since its creation is what it missed.
    if (!nowActive && (wasActive || existing === null)) next.inactive_since = existing === null ? new Date(snapshot.created_at) : now;
    // First seen active: every event since its creation that is already here (missedSince keeps to those that
    // occurred from its creation on and have no delivery to it).
    const replayFrom = existing === null && nowActive ? new Date(snapshot.created_at) : existing !== null && !wasActive && nowActive ? existing.inactive_since : null;
    if (nowActive) next.inactive_since = null;

    await this.endpoints.save(manager, snapshot, next);

    if (wasActive && !nowActive) {
      const ended = await this.deliveries.failPending(manager, snapshot.id, deleted ? 'endpoint_deleted' : 'endpoint_disabled');
      if (ended > 0) this.logger.log({ endpoint: snapshot.id, ended }, 'endpoint inactive: pending deliveries ended');
    }
    const addsTypes = wasActive && nowActive && takesMore(existing.events, snapshot.events);
    if (replayFrom === null && !addsTypes) return 'applied';

    // It takes events it did not: the sweep covers a payment event whose transaction raced this one.
    if (existing !== null) await this.endpoints.markWidened(manager, snapshot.id, now);
    this.catchUp.soon();
    let missed: string[];
    let why: string;
    if (replayFrom !== null) {
      const stored = (await this.endpoints.find(manager, snapshot.id))!;
      // Enabled again: also an event whose transaction began before the disabling and read the endpoint after it
      // (stamped before inactive_since, and given no delivery).
      const since = existing === null ? replayFrom : new Date(replayFrom.getTime() - EVENT_TRANSACTION_MARGIN_MS);
      missed = await this.events.missedSince(manager, stored, since);
      why = existing === null ? 'endpoint seen after events meant for it: caught up' : 'endpoint enabled again: missed events replayed';
    } else {
      // Event types added: what occurred since the change and was stored before this snapshot arrived (endpoint and
      // payment events come on different topics) goes out now.
      missed = await this.events.newlyTakenSince(manager, snapshot, existing!.events!, new Date(snapshot.updated_at));
      why = 'event types added: events since the change caught up';
    }
    await this.deliveries.schedule(manager, snapshot.id, missed, 'replay');
    if (missed.length > 0) {
      await this.db.notifyDeliveries(manager);
      this.logger.log({ endpoint: snapshot.id, replayed: missed.length }, why);
    }
    return 'applied';
  }
}
