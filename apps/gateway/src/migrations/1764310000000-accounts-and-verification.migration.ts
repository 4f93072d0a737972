import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The people of a merchant (users with a role, passwords as argon2id hashes, lock-out, TOTP), the links mailed to
 * them (only a SHA-256 of each token), their recovery codes, and the identity-verification details on merchants.
 */
export class AccountsAndVerification1764310000000 implements MigrationInterface {
  name = 'AccountsAndVerification1764310000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`
      ALTER TABLE ${s}.merchants
        ADD COLUMN business_name text NULL CHECK (char_length(business_name) BETWEEN 1 AND 200),
        ADD COLUMN country text NULL CHECK (country ~ '^[A-Z]{2}$'),
        ADD COLUMN owner_name text NULL CHECK (char_length(owner_name) BETWEEN 1 AND 200),
        ADD COLUMN contact text NULL CHECK (char_length(contact) BETWEEN 1 AND 254),
        ADD COLUMN verification_submitted_at timestamptz NULL,
        ADD COLUMN verification_decided_at timestamptz NULL,
        ADD COLUMN rejection_reason text NULL CHECK (char_length(rejection_reason) BETWEEN 1 AND 500),
        ADD CONSTRAINT merchants_rejected_has_reason CHECK ((verification_status = 'rejected') = (rejection_reason IS NOT NULL))`);
    await queryRunner.query(`
      CREATE TABLE ${s}.users (
        id text PRIMARY KEY CHECK (id ~ '^usr_[A-Za-z0-9]{24}$'),
        merchant_id text NOT NULL REFERENCES ${s}.merchants (id) ON DELETE CASCADE,
        email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
        password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
        role text NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
        language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'ar')),
        email_confirmed_at timestamptz NULL,
        failed_logins integer NOT NULL DEFAULT 0 CHECK (failed_logins >= 0),
        locked_at timestamptz NULL,
        session_epoch integer NOT NULL DEFAULT 0,
        totp_secret text NULL,
        totp_enabled_at timestamptz NULL,
        totp_last_step bigint NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz NULL,
        CHECK (totp_enabled_at IS NULL OR totp_secret IS NOT NULL)
      )`);
    // One user per address across all merchants, whatever its case: sign-in names the address only.
    await queryRunner.query(`CREATE UNIQUE INDEX users_email_key ON ${s}.users (lower(email))`);
    await queryRunner.query(`CREATE INDEX users_merchant_idx ON ${s}.users (merchant_id, role)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.user_tokens (
        token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        purpose text NOT NULL CHECK (purpose IN ('confirm_email', 'password_reset', 'unlock', 'invitation')),
        user_id text NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
        merchant_id text NULL REFERENCES ${s}.merchants (id) ON DELETE CASCADE,
        email text NULL,
        role text NULL CHECK (role IN ('owner', 'developer', 'viewer')),
        invited_by text NULL REFERENCES ${s}.users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        -- An invitation names a merchant, an address and a role (there is no user yet); every other link a user.
        CHECK (CASE WHEN purpose = 'invitation'
          THEN user_id IS NULL AND merchant_id IS NOT NULL AND email IS NOT NULL AND role IS NOT NULL
          ELSE user_id IS NOT NULL END)
      )`);
    await queryRunner.query(`CREATE INDEX user_tokens_user_idx ON ${s}.user_tokens (user_id, purpose) WHERE user_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX user_tokens_invitations_idx ON ${s}.user_tokens (merchant_id) WHERE purpose = 'invitation'`);
    await queryRunner.query(`
      CREATE TABLE ${s}.recovery_codes (
        user_id text NOT NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
        code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        used_at timestamptz NULL,
        PRIMARY KEY (user_id, code_hash)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`DROP TABLE IF EXISTS ${s}.recovery_codes`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${s}.user_tokens`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${s}.users`);
    await queryRunner.query(`
      ALTER TABLE ${s}.merchants
        DROP CONSTRAINT IF EXISTS merchants_rejected_has_reason,
        DROP COLUMN IF EXISTS business_name, DROP COLUMN IF EXISTS country, DROP COLUMN IF EXISTS owner_name,
        DROP COLUMN IF EXISTS contact, DROP COLUMN IF EXISTS verification_submitted_at,
        DROP COLUMN IF EXISTS verification_decided_at, DROP COLUMN IF EXISTS rejection_reason`);
  }
}
