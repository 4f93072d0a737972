import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gateway's resend, replay and test commands by command id (the merchant's Idempotency-Key where it sent
 * one), recorded in the transaction that schedules their deliveries: the same command sent again answers what
 * the first did instead of scheduling again.
 */
export class CommandResults1763920000000 implements MigrationInterface {
  name = 'CommandResults1763920000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = qualified(migrationSchema(queryRunner), 'command_results');
    await queryRunner.query(`
      CREATE TABLE ${t} (
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        command_id text NOT NULL CHECK (char_length(command_id) BETWEEN 1 AND 200),
        fingerprint text NOT NULL,
        result jsonb NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (merchant_id, environment, command_id)
      )`);
    await queryRunner.query(`CREATE INDEX command_results_created_at_idx ON ${t} (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS ${qualified(migrationSchema(queryRunner), 'command_results')}`);
  }
}
