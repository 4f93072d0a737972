import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wallet payments and wallet top-ups are attempts too, in the same table, so one open attempt per session holds
 * across methods and the same background check (with its leases) finishes them:
 * - a wallet (`togo`) payment: provider `togo`, its payment id chosen before the ledger is asked (the posting's key),
 *   the wallet, the payer the invoice reports, and the fee sent to the ledger; no provider page (redirect_url null);
 * - a card top-up of a wallet at Lahza: session_kind `wallet_top_up`, no session (session_id is its own reference, no
 *   merchant), the wallet credited and where the customer goes back to.
 */
export class WalletAttempts1764400000000 implements MigrationInterface {
  name = 'WalletAttempts1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = qualified(migrationSchema(queryRunner), 'provider_attempts');
    await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS provider_attempts_session_kind_check`);
    await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT provider_attempts_session_kind_check CHECK (session_kind IN ('payment_intent', 'invoice', 'wallet_top_up'))`);
    await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN merchant_id DROP NOT NULL, ALTER COLUMN redirect_url DROP NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE ${table} ADD COLUMN wallet_id text NULL, ADD COLUMN payer jsonb NULL, ADD COLUMN return_to text NULL,
         ADD COLUMN fee_cents bigint NULL, ADD COLUMN fee_rate_bps integer NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const table = qualified(migrationSchema(queryRunner), 'provider_attempts');
    await queryRunner.query(`DELETE FROM ${table} WHERE session_kind = 'wallet_top_up' OR provider = 'togo'`);
    await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN wallet_id, DROP COLUMN payer, DROP COLUMN return_to, DROP COLUMN fee_cents, DROP COLUMN fee_rate_bps`);
    await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN merchant_id SET NOT NULL, ALTER COLUMN redirect_url SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT provider_attempts_session_kind_check`);
    await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT provider_attempts_session_kind_check CHECK (session_kind IN ('payment_intent', 'invoice'))`);
  }
}
