import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A session the expiry job fails to expire is set aside until expiry_retry_at (backing off with each failure),
 * so it cannot stay first in line and hold up every other due session.
 */
export class ExpirySetAside1764000000001 implements MigrationInterface {
  name = 'ExpirySetAside1764000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    for (const table of ['payment_intents', 'invoices']) {
      await queryRunner.query(
        `ALTER TABLE ${qualified(schema, table)} ADD COLUMN expiry_failures integer NOT NULL DEFAULT 0, ADD COLUMN expiry_retry_at timestamptz NULL`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    for (const table of ['payment_intents', 'invoices']) {
      await queryRunner.query(`ALTER TABLE ${qualified(schema, table)} DROP COLUMN expiry_failures, DROP COLUMN expiry_retry_at`);
    }
  }
}
