import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When an endpoint last began to take events it did not take before (enabled again, or event types added): the
 * catch-up sweep looks at those widened lately, as at those first seen lately.
 */
export class EndpointWidened1763980000000 implements MigrationInterface {
  name = 'EndpointWidened1763980000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = qualified(migrationSchema(queryRunner), 'endpoints');
    await queryRunner.query(`ALTER TABLE ${t} ADD COLUMN widened_at timestamptz`);
    await queryRunner.query(`CREATE INDEX endpoints_widened_idx ON ${t} (widened_at) WHERE widened_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${qualified(migrationSchema(queryRunner), 'endpoints')} DROP COLUMN widened_at`);
  }
}
