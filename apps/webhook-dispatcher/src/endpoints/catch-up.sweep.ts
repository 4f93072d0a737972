import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { activeEndpointSql, EVENT_TRANSACTION_MARGIN_MS } from '../shared/endpoint-row';
import type { WebhooksDatabase } from '../shared/webhooks-database';

const SWEEP_EVERY_MS = 30_000;
/**
 * How long after an endpoint's first sight its own sweep runs: long enough for a payment event's transaction that
 * raced it to have committed, short enough that the merchant's first webhook is not held for the next interval.
 */
const SWEEP_AFTER_FIRST_SIGHT_MS = 2_000;
/** How long after its first sight (or a widening) an endpoint is swept: far longer than any transaction then in flight. */
const SWEEP_WINDOW = '10 minutes';
// One sweeper at a time across instances (two would both see an event undelivered and both schedule it). Held by
// the sweeping transaction (pg_try_advisory_xact_lock): it ends with it, or with its connection if the instance dies.
export const CATCH_UP_SWEEP_LOCK = 0x77656273; // 'webs'

/**
 * Closes the window the catch-ups of EndpointEventsHandler leave: a payment event whose transaction commits while
 * an endpoint's first sight or widening (enabled again, event types added) is in flight is seen by neither (each
 * read before the other committed). For endpoints first seen in the last minutes it schedules every event they
 * take, from their creation on, that has no delivery to them at all; for endpoints widened in the last minutes,
 * every such event received from shortly before the widening (any transaction in flight at it). Every 30 s, and
 * once a couple of seconds after each first sight or widening (`soon`), so the race costs the merchant seconds,
 * not the interval.
 */
export class CatchUpSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('CatchUpSweep');
  private timer?: NodeJS.Timeout;
  private soonTimer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly db: WebhooksDatabase,
    private readonly deliveries: DeliveriesRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.trigger(), SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.soonTimer);
    this.timer = this.soonTimer = undefined;
    await this.running;
  }

  /**
   * One sweep a couple of seconds from now (EndpointEventsHandler calls it at an endpoint's first sight or widening);
   * asks made meanwhile share it. Only while the sweep runs on its own (after bootstrap, before destroy).
   */
  soon(): void {
    if (!this.timer || this.soonTimer) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = undefined;
      this.trigger();
    }, SWEEP_AFTER_FIRST_SIGHT_MS);
    this.soonTimer.unref();
  }

  /** A sweep unless one is running (one that coincides with it is left to the next interval, as before). */
  private trigger(): void {
    if (this.running) return;
    this.running = this.sweep()
      .catch((error: unknown) => this.logger.error({ err: error }, 'catch-up sweep failed; trying again next interval'))
      .finally(() => (this.running = undefined));
  }

  /** One sweep; answers how many deliveries it scheduled (0 when another instance is sweeping). */
  async sweep(): Promise<number> {
    return this.db.dataSource.transaction(async (manager) => {
      const [{ locked }] = (await manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [CATCH_UP_SWEEP_LOCK])) as [{ locked: boolean }];
      if (!locked) return 0;
      const t = (name: string) => this.db.table(name);
      // Each event an endpoint takes, with no delivery to it, among those `recent` selects. Two selects, not one
      // with an OR: each keeps its own index (an endpoint widened reads the last minutes' events by received_at, not
      // its merchant's whole history).
      const missedOf = (recent: string) =>
        `SELECT ep.id AS endpoint_id, ev.id AS event_id, ev.occurred_at
         FROM ${t('endpoints')} ep
         JOIN ${t('events')} ev ON ev.merchant_id = ep.merchant_id AND ev.environment = ep.environment
         WHERE ${recent} AND ${activeEndpointSql('ep')}
           AND ev.endpoint_id IS NULL AND ev.occurred_at >= ep.created_at
           AND (ep.events IS NULL OR ev.type = ANY(ep.events))
           AND NOT EXISTS (SELECT 1 FROM ${t('deliveries')} d WHERE d.event_id = ev.id AND d.endpoint_id = ep.id)`;
      const missed = (await manager.query(
        `${missedOf('ep.first_seen_at > now() - $1::interval')}
         UNION
         ${missedOf(`ep.widened_at > now() - $1::interval AND ev.received_at >= ep.widened_at - $2::int * interval '1 millisecond'`)}
         ORDER BY occurred_at, event_id`,
        [SWEEP_WINDOW, EVENT_TRANSACTION_MARGIN_MS],
      )) as Array<{ endpoint_id: string; event_id: string }>;
      const byEndpoint = new Map<string, string[]>();
      for (const row of missed) byEndpoint.set(row.endpoint_id, [...(byEndpoint.get(row.endpoint_id) ?? []), row.event_id]);
      for (const [endpointId, eventIds] of byEndpoint) await this.deliveries.schedule(manager, endpointId, eventIds, 'replay');
      if (missed.length > 0) {
        await this.db.notifyDeliveries(manager);
        this.logger.warn({ scheduled: missed.length, endpoints: byEndpoint.size }, 'events missed around an endpoint\'s first sight or widening: scheduled');
      }
      return missed.length;
    });
  }
}
