import { ApiError } from '@payments/platform';
import type { EntityManager } from 'typeorm';

export interface CommandOrigin {
  merchantId: string;
  environment: string;
  /** Absent for a command sent without one: it is simply done. */
  commandId: string | undefined;
  /** What the command asked (its name and body): the same id on another request is a conflict. */
  fingerprint: string;
}

/**
 * Commands done once by id (see CommandResults1763920000000). `once` claims the id in the caller's transaction
 * before the work: a concurrent same command waits on the claim's row and then finds the first one's result.
 */
export class CommandResultsRepository {
  constructor(private readonly table: string) {}

  async once<T>(manager: EntityManager, origin: CommandOrigin, work: () => Promise<T>): Promise<T> {
    if (origin.commandId === undefined) return work();
    const claimed = (await manager.query(
      `INSERT INTO ${this.table} (merchant_id, environment, command_id, fingerprint) VALUES ($1, $2, $3, $4)
       ON CONFLICT (merchant_id, environment, command_id) DO NOTHING RETURNING command_id`,
      [origin.merchantId, origin.environment, origin.commandId, origin.fingerprint],
    )) as unknown[];
    if (claimed.length === 0) {
      const [earlier] = (await manager.query(
        `SELECT fingerprint, result FROM ${this.table} WHERE merchant_id = $1 AND environment = $2 AND command_id = $3`,
        [origin.merchantId, origin.environment, origin.commandId],
      )) as Array<{ fingerprint: string; result: T }>;
      if (earlier!.fingerprint !== origin.fingerprint) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
      }
      return earlier!.result;
    }
    const result = await work();
    await manager.query(`UPDATE ${this.table} SET result = $4 WHERE merchant_id = $1 AND environment = $2 AND command_id = $3`, [
      origin.merchantId,
      origin.environment,
      origin.commandId,
      JSON.stringify(result),
    ]);
    return result;
  }

  /** Deletes results older than `before` (the retention job). */
  async prune(manager: EntityManager, before: Date): Promise<number> {
    const [, deleted] = (await manager.query(`DELETE FROM ${this.table} WHERE created_at < $1`, [before])) as [unknown, number];
    return deleted;
  }
}
