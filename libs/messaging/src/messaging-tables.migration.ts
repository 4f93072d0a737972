import type { MigrationInterface, QueryRunner } from 'typeorm';
import { migrationSchema, qualified } from '@payments/database';

/**
 * The outbox (events waiting for the relay) and the inbox (events a consumer already handled) in the schema the
 * DataSource is configured with. Services list this class in their migrations.
 */
export class MessagingTables1763769600000 implements MigrationInterface {
  name = 'MessagingTables1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await queryRunner.query(`
      CREATE TABLE ${qualified(schema, 'outbox')} (
        id bigserial PRIMARY KEY,
        event_id text NOT NULL UNIQUE,
        topic text NOT NULL,
        key text NOT NULL,
        payload jsonb NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz NULL
      )`);
    // The relay only ever scans unsent rows in id order; this index stays as small as the backlog.
    await queryRunner.query(`CREATE INDEX outbox_unsent_idx ON ${qualified(schema, 'outbox')} (id) WHERE sent_at IS NULL`);
    await queryRunner.query(`
      CREATE TABLE ${qualified(schema, 'inbox')} (
        consumer text NOT NULL,
        event_id text NOT NULL,
        handled_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP TABLE IF EXISTS ${qualified(schema, 'inbox')}`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${qualified(schema, 'outbox')}`);
  }
}
