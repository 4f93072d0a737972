import type { Environment } from '@payments/ids';
import { qualified, type SqlStatement } from '@payments/database';
import type { EntityManager } from 'typeorm';

/** The unique constraint a second claim of one key violates. */
export const IDEMPOTENCY_KEY_CONSTRAINT = 'idempotency_keys_scope_key';

export type IdempotentObjectType = 'payment_intent' | 'invoice';

export interface IdempotencyScope {
  readonly merchantId: string;
  readonly environment: Environment;
}

export type IdempotencyClaim =
  | { readonly claimed: true }
  | {
      readonly claimed: false;
      readonly objectType: IdempotentObjectType;
      readonly objectId: string;
      readonly fingerprint: string;
      readonly createdAt: Date;
    };

/**
 * One object per (merchant, environment, key), decided in the creating transaction. A claim racing another with
 * the same key waits for it: when that one commits, this one sees its object; when it rolls back, this one wins.
 * A claim holds its key for the retention (IDEMPOTENCY_TTL_SECONDS, as the gateway's replay record): older, it
 * no longer counts (the key makes a new object), and pruneExpired deletes it.
 */
export class IdempotencyKeysRepository {
  private readonly table: string;

  constructor(schema: string) {
    this.table = qualified(schema, 'idempotency_keys');
  }

  async claim(
    manager: EntityManager,
    scope: IdempotencyScope,
    key: string,
    objectType: IdempotentObjectType,
    objectId: string,
    fingerprint: string,
    expiredBefore: Date,
  ): Promise<IdempotencyClaim> {
    // A claim past the retention is taken over in place (row-locked, so two takers cannot both win).
    const inserted: unknown[] = await manager.query(
      `INSERT INTO ${this.table} AS claim (merchant_id, environment, key, object_type, object_id, fingerprint)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (merchant_id, environment, key) DO UPDATE
         SET object_type = EXCLUDED.object_type, object_id = EXCLUDED.object_id, fingerprint = EXCLUDED.fingerprint, created_at = now()
         WHERE claim.created_at < $7
       RETURNING object_id`,
      [scope.merchantId, scope.environment, key, objectType, objectId, fingerprint, expiredBefore],
    );
    if (inserted.length === 1) return { claimed: true };
    const existing = await this.find(manager, scope, key);
    if (!existing) throw new Error('idempotency key neither inserted nor found');
    return existing;
  }

  /**
   * The claim as a statement for a create written as one statement: a key already taken makes the whole
   * statement fail with a unique violation of IDEMPOTENCY_KEY_CONSTRAINT (nothing of the create is written),
   * after which find() tells what the key holds.
   */
  claimStatement(scope: IdempotencyScope, key: string, objectType: IdempotentObjectType, objectId: string, fingerprint: string): SqlStatement {
    return {
      text: `INSERT INTO ${this.table} (merchant_id, environment, key, object_type, object_id, fingerprint) VALUES ($1, $2, $3, $4, $5, $6)`,
      params: [scope.merchantId, scope.environment, key, objectType, objectId, fingerprint],
    };
  }

  async find(manager: EntityManager, scope: IdempotencyScope, key: string): Promise<Extract<IdempotencyClaim, { claimed: false }> | null> {
    const [existing]: Array<{ object_type: IdempotentObjectType; object_id: string; fingerprint: string; created_at: Date }> = await manager.query(
      `SELECT object_type, object_id, fingerprint, created_at FROM ${this.table} WHERE merchant_id = $1 AND environment = $2 AND key = $3`,
      [scope.merchantId, scope.environment, key],
    );
    return existing
      ? { claimed: false, objectType: existing.object_type, objectId: existing.object_id, fingerprint: existing.fingerprint, createdAt: existing.created_at }
      : null;
  }

  /** Deletes this key's claim if it is past the retention (so the create that found it can claim the key). */
  async releaseExpired(manager: EntityManager, scope: IdempotencyScope, key: string, expiredBefore: Date): Promise<void> {
    await manager.query(`DELETE FROM ${this.table} WHERE merchant_id = $1 AND environment = $2 AND key = $3 AND created_at < $4`, [
      scope.merchantId,
      scope.environment,
      key,
      expiredBefore,
    ]);
  }

  /** Deletes claims past the retention, at most `batch` of them; answers how many went. */
  async pruneExpired(manager: EntityManager, expiredBefore: Date, batch: number): Promise<number> {
    const [, deleted] = (await manager.query(
      `DELETE FROM ${this.table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${this.table} WHERE created_at < $1 LIMIT $2))`,
      [expiredBefore, batch],
    )) as [unknown, number];
    return deleted;
  }
}
