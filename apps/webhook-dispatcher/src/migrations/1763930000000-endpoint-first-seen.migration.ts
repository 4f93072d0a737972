import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When the dispatcher first stored an endpoint: the catch-up sweep looks at those first seen lately. */
export class EndpointFirstSeen1763930000000 implements MigrationInterface {
  name = 'EndpointFirstSeen1763930000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = qualified(migrationSchema(queryRunner), 'endpoints');
    await queryRunner.query(`ALTER TABLE ${t} ADD COLUMN first_seen_at timestamptz NOT NULL DEFAULT now()`);
    await queryRunner.query(`CREATE INDEX endpoints_first_seen_idx ON ${t} (first_seen_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${qualified(migrationSchema(queryRunner), 'endpoints')} DROP COLUMN first_seen_at`);
  }
}
