import { qualified } from '@payments/database';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * Who hears about a merchant's account (a disabled endpoint, say). The one place that decides it: today the
 * merchant's own address (merchants.email); with users per merchant, its owners' confirmed addresses.
 */
export class MailRecipients {
  private readonly merchants: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.merchants = qualified(schema, 'merchants');
  }

  /** The addresses of the merchant's owners; none for a merchant that does not exist. */
  async ownerAddressesOf(merchantId: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows = (await manager.query(`SELECT email FROM ${this.merchants} WHERE id = $1`, [merchantId])) as Array<{ email: string }>;
    return rows.map((row) => row.email);
  }
}
