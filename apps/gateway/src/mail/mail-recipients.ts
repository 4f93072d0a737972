import { qualified } from '@payments/database';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * Who hears about a merchant's account (a disabled endpoint, say). The one place that decides it: its owners'
 * confirmed addresses, and the merchant's own address (merchants.email, the one an operator created it with) when
 * no owner has confirmed one.
 */
export class MailRecipients {
  private readonly merchants: string;
  private readonly users: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.merchants = qualified(schema, 'merchants');
    this.users = qualified(schema, 'users');
  }

  /** The addresses of the merchant's owners; none for a merchant that does not exist. */
  async ownerAddressesOf(merchantId: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const owners = (await manager.query(
      `SELECT email FROM ${this.users} WHERE merchant_id = $1 AND role = 'owner' AND email_confirmed_at IS NOT NULL ORDER BY created_at`,
      [merchantId],
    )) as Array<{ email: string }>;
    if (owners.length > 0) return owners.map((row) => row.email);
    const rows = (await manager.query(`SELECT email FROM ${this.merchants} WHERE id = $1`, [merchantId])) as Array<{ email: string }>;
    return rows.map((row) => row.email);
  }
}
