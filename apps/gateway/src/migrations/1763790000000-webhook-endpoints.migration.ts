import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Merchants' webhook endpoints; signing secrets are stored encrypted (AES-256-GCM, WEBHOOK_SECRETS_KEY). */
export class WebhookEndpoints1763790000000 implements MigrationInterface {
  name = 'WebhookEndpoints1763790000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`
      CREATE TABLE ${s}.webhook_endpoints (
        id text PRIMARY KEY CHECK (id ~ '^we_[A-Za-z0-9]{24}$'),
        merchant_id text NOT NULL REFERENCES ${s}.merchants (id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
        events text[] NULL CHECK (events IS NULL OR cardinality(events) > 0),
        status text NOT NULL CHECK (status IN ('enabled', 'disabled', 'deleted')),
        secret_encrypted text NOT NULL,
        previous_secret_encrypted text NULL,
        previous_secret_expires_at timestamptz NULL,
        version integer NOT NULL CHECK (version >= 1),
        idempotency_key text NULL CHECK (length(idempotency_key) <= 190),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK ((previous_secret_encrypted IS NULL) = (previous_secret_expires_at IS NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_endpoints_merchant_idx ON ${s}.webhook_endpoints (merchant_id, environment, created_at) WHERE status <> 'deleted'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_endpoints_idempotency_key ON ${s}.webhook_endpoints (merchant_id, environment, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "${migrationSchema(queryRunner)}".webhook_endpoints`);
  }
}
