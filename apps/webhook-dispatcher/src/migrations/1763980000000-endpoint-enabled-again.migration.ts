import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When an endpoint last became active again: the catch-up sweep looks at those enabled again lately, as at those first seen lately. */
export class EndpointEnabledAgain1763980000000 implements MigrationInterface {
  name = 'EndpointEnabledAgain1763980000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = qualified(migrationSchema(queryRunner), 'endpoints');
    await queryRunner.query(`ALTER TABLE ${t} ADD COLUMN enabled_again_at timestamptz`);
    await queryRunner.query(`CREATE INDEX endpoints_enabled_again_idx ON ${t} (enabled_again_at) WHERE enabled_again_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${qualified(migrationSchema(queryRunner), 'endpoints')} DROP COLUMN enabled_again_at`);
  }
}
