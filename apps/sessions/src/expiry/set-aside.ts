import type { EntityManager } from 'typeorm';

/**
 * After a failed expiry (its savepoint rolled back): the session is out of line until a later retry, one second
 * doubling with each failure up to an hour (the read models of intents and invoices have the same columns).
 * Answers how many times it has failed.
 */
export async function setAsideExpiry(manager: EntityManager, table: string, id: string, now: Date): Promise<number> {
  const [row]: Array<{ expiry_failures: number }> = await manager.query(
    `UPDATE ${table}
     SET expiry_failures = expiry_failures + 1,
         expiry_retry_at = $2::timestamptz + least(interval '1 second' * power(2, expiry_failures), interval '1 hour')
     WHERE id = $1
     RETURNING expiry_failures`,
    [id, now],
  );
  return row?.expiry_failures ?? 0;
}
