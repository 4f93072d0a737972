import type { Environment } from '@payments/ids';
import { qualified } from '@payments/database';
import { DataSource, EntityManager, Not, Repository } from 'typeorm';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import type { WebhookEndpointState } from './webhook-endpoint.model';

export interface EndpointScope {
  merchantId: string;
  environment: Environment;
}

/** An action done under an Idempotency-Key (see WebhookEndpointActions1763810000000). */
export interface RecordedAction {
  action: 'roll_secret' | 'enable';
  endpointId: string;
  fingerprint: string;
  secretEncrypted: string | null;
}

/** Every query on webhook endpoints. A deleted endpoint is found by nothing but its idempotency key. */
export class WebhookEndpointsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
  ) {}

  private endpoints(manager: EntityManager = this.dataSource.manager): Repository<WebhookEndpointEntity> {
    return manager.getRepository(WebhookEndpointEntity);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Serializes the creations of one merchant (the per-environment limit and the idempotency key are checked
   * under it). NO KEY UPDATE: other transactions' foreign key checks on the merchant are not blocked by it.
   */
  async lockMerchant(manager: EntityManager, merchantId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT id FROM ${qualified(this.schema, 'merchants')} WHERE id = $1 FOR NO KEY UPDATE`, [
      merchantId,
    ]);
    return rows.length > 0;
  }

  countActive(manager: EntityManager, scope: EndpointScope): Promise<number> {
    return this.endpoints(manager).countBy({ merchantId: scope.merchantId, environment: scope.environment, status: Not('deleted') });
  }

  findByIdempotencyKey(manager: EntityManager, scope: EndpointScope, key: string): Promise<WebhookEndpointEntity | null> {
    return this.endpoints(manager).findOneBy({ merchantId: scope.merchantId, environment: scope.environment, idempotencyKey: key });
  }

  /** The endpoint when it belongs to the merchant and environment and is not deleted; `forUpdate` locks it. */
  find(scope: EndpointScope, id: string, manager?: EntityManager, forUpdate = false): Promise<WebhookEndpointEntity | null> {
    return this.endpoints(manager).findOne({
      where: { id, merchantId: scope.merchantId, environment: scope.environment, status: Not('deleted') },
      ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The endpoint by id alone, locked (for events about it, which carry its merchant and environment). */
  findForUpdate(manager: EntityManager, id: string): Promise<WebhookEndpointEntity | null> {
    return this.endpoints(manager).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Oldest first, like the developer page shows them. */
  list(scope: EndpointScope): Promise<WebhookEndpointEntity[]> {
    return this.endpoints().find({
      where: { merchantId: scope.merchantId, environment: scope.environment, status: Not('deleted') },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  async insert(manager: EntityManager, endpoint: WebhookEndpointState, idempotencyKey: string | null): Promise<void> {
    await this.endpoints(manager).insert({ ...endpoint, idempotencyKey });
  }

  /** Writes a change computed from the locked row; the version check makes a lost update impossible. */
  async update(manager: EntityManager, before: WebhookEndpointState, after: WebhookEndpointState): Promise<void> {
    const result = await this.endpoints(manager).update(
      { id: before.id, version: before.version },
      {
        url: after.url,
        events: after.events,
        status: after.status,
        secretEncrypted: after.secretEncrypted,
        previousSecretEncrypted: after.previousSecretEncrypted,
        previousSecretExpiresAt: after.previousSecretExpiresAt,
        disabledReason: after.disabledReason,
        disabledAt: after.disabledAt,
        version: after.version,
        updatedAt: after.updatedAt,
      },
    );
    if ((result.affected ?? 0) !== 1) throw new Error(`webhook endpoint ${before.id} changed under its lock (version ${before.version})`);
  }

  /**
   * The action an Idempotency-Key already did (and is still kept: younger than `expiredBefore`). Older records of
   * the merchant are deleted on the way, so the table holds about a retention's worth of keys.
   */
  async findAction(manager: EntityManager, scope: EndpointScope, key: string, expiredBefore: Date): Promise<RecordedAction | null> {
    const table = qualified(this.schema, 'webhook_endpoint_actions');
    await manager.query(`DELETE FROM ${table} WHERE merchant_id = $1 AND created_at < $2`, [scope.merchantId, expiredBefore]);
    const [row]: Array<{ action: RecordedAction['action']; endpoint_id: string; fingerprint: string; secret_encrypted: string | null }> =
      await manager.query(
        `SELECT action, endpoint_id, fingerprint, secret_encrypted FROM ${table} WHERE merchant_id = $1 AND environment = $2 AND idempotency_key = $3`,
        [scope.merchantId, scope.environment, key],
      );
    return row ? { action: row.action, endpointId: row.endpoint_id, fingerprint: row.fingerprint, secretEncrypted: row.secret_encrypted } : null;
  }

  async recordAction(manager: EntityManager, scope: EndpointScope, key: string, action: RecordedAction): Promise<void> {
    await manager.query(
      `INSERT INTO ${qualified(this.schema, 'webhook_endpoint_actions')}
         (merchant_id, environment, idempotency_key, action, endpoint_id, fingerprint, secret_encrypted) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [scope.merchantId, scope.environment, key, action.action, action.endpointId, action.fingerprint, action.secretEncrypted],
    );
  }
}
