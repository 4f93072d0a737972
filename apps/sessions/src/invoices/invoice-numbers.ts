import { qualified } from '@payments/database';
import type { EntityManager } from 'typeorm';
import type { StreamScope } from '../event-store/event-store';

export const FIRST_INVOICE_NUMBER = 1001;

/**
 * Per merchant and environment invoice numbers 1001, 1002, ... The upsert locks the counter row until the
 * creating transaction ends, so concurrent creates take turns, and a rolled-back create gives its number back:
 * no duplicate, no gap.
 */
export class InvoiceNumbers {
  private readonly table: string;

  constructor(schema: string) {
    this.table = qualified(schema, 'invoice_counters');
  }

  async next(manager: EntityManager, scope: StreamScope): Promise<string> {
    const [row]: Array<{ last_number: string }> = await manager.query(
      `INSERT INTO ${this.table} AS c (merchant_id, environment, last_number) VALUES ($1, $2, $3)
       ON CONFLICT (merchant_id, environment) DO UPDATE SET last_number = c.last_number + 1
       RETURNING last_number`,
      [scope.merchantId, scope.environment, FIRST_INVOICE_NUMBER],
    );
    if (!row) throw new Error('invoice counter upsert returned no row');
    return String(row.last_number);
  }
}
