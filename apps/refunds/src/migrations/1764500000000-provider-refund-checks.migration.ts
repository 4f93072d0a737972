import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds of provider payments stay pending until the provider says processed or failed: the background check asks
 * again at `next_check_at` (5 s after creation, then doubling to 5 minutes), counting its `checks`.
 */
export class ProviderRefundChecks1764500000000 implements MigrationInterface {
  name = 'ProviderRefundChecks1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const refunds = qualified(migrationSchema(queryRunner), 'refunds');
    await queryRunner.query(`ALTER TABLE ${refunds} ADD COLUMN next_check_at timestamptz NULL, ADD COLUMN checks integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`CREATE INDEX refunds_due ON ${refunds} (next_check_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP INDEX ${qualified(schema, 'refunds_due')}`);
    await queryRunner.query(`ALTER TABLE ${qualified(schema, 'refunds')} DROP COLUMN next_check_at, DROP COLUMN checks`);
  }
}
