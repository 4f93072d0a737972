import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer wallets (`togo`) in the journal: wallet accounts need no table (their postings, entries and balance rows
 * are the journal's), but postings name the wallet they move, two kinds move a wallet's money without a merchant
 * (an operator's credit, a card top-up), and each wallet payment's answer is kept so it is given once per payment.
 */
export class Wallets1764500000000 implements MigrationInterface {
  name = 'Wallets1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (table: string) => qualified(schema, table);

    await queryRunner.query(`ALTER TABLE ${t('postings')} DROP CONSTRAINT postings_kind_check`);
    await queryRunner.query(
      `ALTER TABLE ${t('postings')} ADD CONSTRAINT postings_kind_check CHECK (kind IN ('payment', 'refund', 'adjustment', 'wallet_credit', 'wallet_top_up'))`,
    );
    await queryRunner.query(`ALTER TABLE ${t('postings')} ADD COLUMN wallet_id text NULL`);
    await queryRunner.query(`ALTER TABLE ${t('postings')} ALTER COLUMN merchant_id DROP NOT NULL`);
    // Only a wallet's credits and top-ups move no merchant's money; they always name their wallet.
    await queryRunner.query(
      `ALTER TABLE ${t('postings')} ADD CONSTRAINT postings_merchant_or_wallet CHECK (
         CASE WHEN kind IN ('wallet_credit', 'wallet_top_up') THEN merchant_id IS NULL AND wallet_id IS NOT NULL ELSE merchant_id IS NOT NULL END)`,
    );
    // One posting per credit key (per wallet and environment) and per top-up, whatever retry asks again.
    await queryRunner.query(`CREATE UNIQUE INDEX postings_wallet_credit_once ON ${t('postings')} (wallet_id, environment, source) WHERE kind = 'wallet_credit'`);
    await queryRunner.query(`CREATE UNIQUE INDEX postings_wallet_top_up_once ON ${t('postings')} (source) WHERE kind = 'wallet_top_up'`);
    // A wallet's statement, newest first.
    await queryRunner.query(`CREATE INDEX postings_wallet_idx ON ${t('postings')} (wallet_id, environment, created_at DESC, id DESC) WHERE wallet_id IS NOT NULL`);

    // A wallet never goes below zero: the payment checks under the row's lock, and the row refuses it regardless
    // (credit-normal, so its sum of entries is never positive). A trigger, not a CHECK: the upsert's proposed row
    // is the change alone, which a CHECK would judge before it is added; the WHEN spares every other row the call.
    await queryRunner.query(`
      CREATE FUNCTION "${schema}".wallet_not_negative() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'wallet % would go below zero (balance % cents)', NEW.account, -NEW.sum_cents
          USING ERRCODE = 'check_violation', CONSTRAINT = 'balances_wallet_not_negative';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER balances_wallet_not_negative AFTER INSERT OR UPDATE ON ${t('balances')}
      FOR EACH ROW WHEN (NEW.sum_cents > 0 AND split_part(NEW.account, ':', 3) = 'wallet')
      EXECUTE FUNCTION "${schema}".wallet_not_negative()`);

    // Each wallet payment's one answer, written in the transaction that decides it: a repeat of the same payment id
    // (a retry, sessions' re-drive after a crash) reads it, a decline included, and never posts twice.
    await queryRunner.query(`
      CREATE TABLE ${t('wallet_payments')} (
        payment_id text PRIMARY KEY,
        wallet_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        merchant_id text NOT NULL,
        source text NOT NULL,
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        outcome text NOT NULL CHECK (outcome IN ('paid', 'insufficient_funds')),
        posting_id text NULL,
        -- The wallet's balance answered: after the payment, or what it held when declined.
        balance_cents bigint NOT NULL CHECK (balance_cents >= 0),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT wallet_payments_posting_when_paid CHECK ((outcome = 'paid') = (posting_id IS NOT NULL))
      )`);

    // The sessions that succeeded with a wallet payment, as their events said (recorded with the event's booking):
    // ledger check proves each wallet debit has its succeeded session and each such session its debit.
    await queryRunner.query(`
      CREATE TABLE ${t('wallet_payment_sessions')} (
        payment_id text PRIMARY KEY,
        wallet_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        merchant_id text NOT NULL,
        source text NOT NULL,
        event_id text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (table: string) => qualified(schema, table);
    await queryRunner.query(`DROP TABLE ${t('wallet_payment_sessions')}, ${t('wallet_payments')}`);
    await queryRunner.query(`DROP TRIGGER balances_wallet_not_negative ON ${t('balances')}`);
    await queryRunner.query(`DROP FUNCTION "${schema}".wallet_not_negative()`);
    await queryRunner.query(`DROP INDEX "${schema}".postings_wallet_idx, "${schema}".postings_wallet_top_up_once, "${schema}".postings_wallet_credit_once`);
    await queryRunner.query(`ALTER TABLE ${t('postings')} DROP CONSTRAINT postings_merchant_or_wallet`);
    await queryRunner.query(`ALTER TABLE ${t('postings')} ALTER COLUMN merchant_id SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE ${t('postings')} DROP COLUMN wallet_id`);
    await queryRunner.query(`ALTER TABLE ${t('postings')} DROP CONSTRAINT postings_kind_check`);
    await queryRunner.query(`ALTER TABLE ${t('postings')} ADD CONSTRAINT postings_kind_check CHECK (kind IN ('payment', 'refund', 'adjustment'))`);
  }
}
