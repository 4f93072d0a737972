import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer wallets (`togo`): who a wallet belongs to (one per e-mail address and environment; the money is in the
 * ledger's journal) and the e-mailed sign-in codes, stored as argon2id hashes only, each usable once within its
 * lifetime and dead after too many wrong tries.
 */
export class CustomerWallets1764400000000 implements MigrationInterface {
  name = 'CustomerWallets1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`
      CREATE TABLE ${s}.customer_wallets (
        id text PRIMARY KEY CHECK (id ~ '^wal_(live|test)_[A-Za-z0-9]{24}$'),
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
        name text NULL CHECK (length(name) <= 160),
        phone text NULL CHECK (length(phone) <= 40),
        country text NULL CHECK (country ~ '^[A-Z]{2}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (id LIKE 'wal_' || environment || '_%'),
        UNIQUE (environment, email)
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.wallet_sign_in_codes (
        id bigserial PRIMARY KEY,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        email text NOT NULL CHECK (email = lower(email)),
        code_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
        used_at timestamptz NULL,
        voided_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX wallet_sign_in_codes_address_idx ON ${s}.wallet_sign_in_codes (environment, email, created_at DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`DROP TABLE IF EXISTS ${s}.wallet_sign_in_codes`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${s}.customer_wallets`);
  }
}
