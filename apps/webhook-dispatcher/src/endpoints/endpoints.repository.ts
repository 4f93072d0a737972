import type { WebhookEndpointSnapshot } from '@payments/contracts';
import type { EndpointDisabledReason } from '@payments/events';
import type { EntityManager } from 'typeorm';
import type { EndpointRow } from '../shared/endpoint-row';
import type { WebhooksDatabase } from '../shared/webhooks-database';

export type AutoDisableReason = EndpointDisabledReason;

/** The dispatcher's copy of endpoint settings and its own view of their health. */
export class EndpointsRepository {
  constructor(private readonly db: WebhooksDatabase) {}

  async find(manager: EntityManager, id: string, forUpdate = false): Promise<EndpointRow | null> {
    const rows = (await manager.query(`SELECT * FROM ${this.db.table('endpoints')} WHERE id = $1 ${forUpdate ? 'FOR UPDATE' : ''}`, [id])) as EndpointRow[];
    return rows[0] ?? null;
  }

  /** The endpoint of a command's scope (merchant, environment, id), not deleted; null when there is none. */
  async findInScope(manager: EntityManager, scope: { merchant_id: string; environment: string; endpoint_id: string }): Promise<EndpointRow | null> {
    const rows = (await manager.query(
      `SELECT * FROM ${this.db.table('endpoints')}
       WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND deleted_at IS NULL`,
      [scope.endpoint_id, scope.merchant_id, scope.environment],
    )) as EndpointRow[];
    return rows[0] ?? null;
  }

  /**
   * Writes a snapshot over the stored one (the caller checked it is newer), with the dispatcher's own columns. A
   * failing streak ends when the merchant lifts the dispatcher's disabling or moves the endpoint to another address
   * (a new receiver is not judged by the old one's failures).
   */
  async save(
    manager: EntityManager,
    snapshot: WebhookEndpointSnapshot,
    state: Pick<EndpointRow, 'sequence' | 'deleted_at' | 'auto_disabled_at' | 'auto_disabled_reason' | 'inactive_since'>,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO ${this.db.table('endpoints')}
         (id, merchant_id, environment, url, events, status, secret_encrypted, previous_secret_encrypted,
          previous_secret_expires_at, created_at, updated_at, sequence, deleted_at, auto_disabled_at,
          auto_disabled_reason, inactive_since)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT (id) DO UPDATE SET
         url = EXCLUDED.url, events = EXCLUDED.events, status = EXCLUDED.status,
         secret_encrypted = EXCLUDED.secret_encrypted, previous_secret_encrypted = EXCLUDED.previous_secret_encrypted,
         previous_secret_expires_at = EXCLUDED.previous_secret_expires_at, updated_at = EXCLUDED.updated_at,
         sequence = EXCLUDED.sequence, deleted_at = EXCLUDED.deleted_at, auto_disabled_at = EXCLUDED.auto_disabled_at,
         auto_disabled_reason = EXCLUDED.auto_disabled_reason, inactive_since = EXCLUDED.inactive_since,
         failing_since = CASE WHEN (EXCLUDED.auto_disabled_at IS NULL AND ${this.db.table('endpoints')}.auto_disabled_at IS NOT NULL)
                                   OR EXCLUDED.url <> ${this.db.table('endpoints')}.url
                              THEN NULL ELSE ${this.db.table('endpoints')}.failing_since END,
         received_at = now()`,
      [
        snapshot.id,
        snapshot.merchant_id,
        snapshot.environment,
        snapshot.url,
        snapshot.events,
        snapshot.status,
        snapshot.secret_encrypted,
        snapshot.previous_secret_encrypted,
        snapshot.previous_secret_expires_at,
        snapshot.created_at,
        snapshot.updated_at,
        state.sequence,
        state.deleted_at,
        state.auto_disabled_at,
        state.auto_disabled_reason,
        state.inactive_since,
      ],
    );
  }

  /** Records a widening (enabled again, or event types added), for the catch-up sweep. */
  async markWidened(manager: EntityManager, id: string, at: Date): Promise<void> {
    await manager.query(`UPDATE ${this.db.table('endpoints')} SET widened_at = $2 WHERE id = $1`, [id, at]);
  }

  /** A failure: when the failing streak began (this attempt, if it is the first one). */
  async markFailing(manager: EntityManager, id: string, at: Date): Promise<Date | null> {
    const rows = (await manager.query(
      `UPDATE ${this.db.table('endpoints')} SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since`,
      [id, at],
    )) as [Array<{ failing_since: Date }>, number];
    return rows[0][0]?.failing_since ?? null;
  }

  /**
   * Disables an active endpoint on the dispatcher's own account (the gateway's status is left as it is).
   * Returns the endpoint when this call disabled it, null when it was already inactive.
   */
  async autoDisable(manager: EntityManager, id: string, reason: AutoDisableReason, replayFrom: Date): Promise<EndpointRow | null> {
    const rows = (await manager.query(
      `UPDATE ${this.db.table('endpoints')}
       SET auto_disabled_at = now(), auto_disabled_reason = $2, inactive_since = $3
       WHERE id = $1 AND status = 'enabled' AND deleted_at IS NULL AND auto_disabled_at IS NULL
       RETURNING *`,
      [id, reason, replayFrom],
    )) as [EndpointRow[], number];
    return rows[0][0] ?? null;
  }

  /**
   * The dispatcher's record of a disabling, with what it knew then. The merchant's e-mail is not sent from here: the
   * gateway (which has the addresses) writes it when it applies the `webhook_endpoint.auto_disabled` event.
   */
  async addDisabledNotification(manager: EntityManager, endpoint: EndpointRow, reason: AutoDisableReason, detail: Record<string, unknown>): Promise<void> {
    await manager.query(
      `INSERT INTO ${this.db.table('notifications')} (kind, merchant_id, environment, endpoint_id, payload)
       VALUES ('webhook_endpoint.disabled', $1, $2, $3, $4::jsonb)`,
      [
        endpoint.merchant_id,
        endpoint.environment,
        endpoint.id,
        JSON.stringify({ endpoint_id: endpoint.id, url: endpoint.url, reason, disabled_at: endpoint.auto_disabled_at, ...detail }),
      ],
    );
  }
}
