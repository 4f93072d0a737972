import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Merchant accounts and their API keys, in the gateway's schema. */
export class MerchantsAndApiKeys1763780000000 implements MigrationInterface {
  name = 'MerchantsAndApiKeys1763780000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`
      CREATE TABLE ${s}.merchants (
        id text PRIMARY KEY CHECK (id ~ '^acct_[A-Za-z0-9]{24}$'),
        name text NOT NULL,
        email text NOT NULL,
        verification_status text NOT NULL DEFAULT 'unverified'
          CHECK (verification_status IN ('unverified', 'pending', 'verified', 'rejected')),
        enabled_methods text[] NOT NULL DEFAULT '{togo,lahza,crypto}'
          CHECK (enabled_methods <@ ARRAY['togo', 'lahza', 'crypto']::text[]),
        rate_limit_live_per_sec integer NULL CHECK (rate_limit_live_per_sec > 0),
        rate_limit_test_per_sec integer NULL CHECK (rate_limit_test_per_sec > 0),
        fee_overrides jsonb NULL CHECK (fee_overrides IS NULL OR jsonb_typeof(fee_overrides) = 'object'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One account per e-mail address: sign-up and the demo merchant look accounts up by it.
    await queryRunner.query(`CREATE UNIQUE INDEX merchants_email_key ON ${s}.merchants (lower(email))`);
    await queryRunner.query(`
      CREATE TABLE ${s}.api_keys (
        key_id text PRIMARY KEY,
        merchant_id text NOT NULL REFERENCES ${s}.merchants (id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        secret_hash text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
        name text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NULL,
        revoked_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_merchant_idx ON ${s}.api_keys (merchant_id, environment)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`DROP TABLE IF EXISTS ${s}.api_keys`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${s}.merchants`);
  }
}
