import type { MigrationInterface, QueryRunner } from 'typeorm';
import { migrationSchema, qualified } from '@payments/database';

/**
 * Where the relay moves an outbox row no batch can carry (larger than the broker accepts), whole and with the
 * reason, instead of retrying it for ever in front of every later event. An operator reads it with
 * `SELECT id, event_id, topic, key, octet_length(payload), reason, parked_at FROM <schema>.outbox_parked`.
 */
export class OutboxParked1764900000000 implements MigrationInterface {
  name = 'OutboxParked1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE IF NOT EXISTS ${qualified(migrationSchema(queryRunner), 'outbox_parked')} (
        id bigint PRIMARY KEY,
        event_id text NOT NULL,
        topic text NOT NULL,
        key text NOT NULL,
        payload text NOT NULL,
        headers text NOT NULL,
        created_at timestamptz NOT NULL,
        parked_at timestamptz NOT NULL DEFAULT now(),
        reason text NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS ${qualified(migrationSchema(queryRunner), 'outbox_parked')}`);
  }
}
