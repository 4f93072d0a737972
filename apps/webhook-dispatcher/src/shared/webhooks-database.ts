import { randomUUID } from 'node:crypto';
import { assertSchemaName, qualified } from '@payments/database';
import type { DataSource, EntityManager } from 'typeorm';

/** The webhooks schema as the dispatcher's parts see it: table names, the wake-up channel, notifications. */
export class WebhooksDatabase {
  readonly schema: string;
  /** LISTEN/NOTIFY channel: new deliveries are due (sent on commit of the transaction that made them). */
  readonly deliveriesChannel: string;
  /**
   * This instance's name on the channel, the payload of its notifications: its own worker claims what it made at
   * once, the others a moment later (see DeliveryWorker).
   */
  readonly notifier = randomUUID();

  constructor(
    readonly dataSource: DataSource,
    schema: string,
  ) {
    this.schema = assertSchemaName(schema);
    this.deliveriesChannel = `${this.schema}_deliveries`;
  }

  table(name: string): string {
    return qualified(this.schema, name);
  }

  /** Wakes the delivery workers of every instance once `manager`'s transaction commits. */
  async notifyDeliveries(manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_notify($1, $2)', [this.deliveriesChannel, this.notifier]);
  }
}
