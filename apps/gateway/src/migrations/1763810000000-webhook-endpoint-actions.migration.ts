import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Roll-secret and enable under an Idempotency-Key, recorded in the transaction that acts: a retry after a lost
 * answer (Redis away, a crash before the replay record was written) answers what the first did instead of
 * acting again. The rolled secret is kept encrypted, as the endpoint's own.
 */
export class WebhookEndpointActions1763810000000 implements MigrationInterface {
  name = 'WebhookEndpointActions1763810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`
      CREATE TABLE ${s}.webhook_endpoint_actions (
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        idempotency_key text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 190),
        action text NOT NULL CHECK (action IN ('roll_secret', 'enable')),
        endpoint_id text NOT NULL,
        fingerprint text NOT NULL,
        secret_encrypted text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (merchant_id, environment, idempotency_key)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "${migrationSchema(queryRunner)}".webhook_endpoint_actions`);
  }
}
