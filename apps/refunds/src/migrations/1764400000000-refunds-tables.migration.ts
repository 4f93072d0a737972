import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payments refunds are taken from (projected from sessions' events, or asked of sessions when a refund comes
 * first) and the refunds. What a payment has left is kept on its row: `reserved_cents` counts pending and completed
 * refunds, and the database refuses a row where it passes the amount, so no interleaving of requests can refund
 * more than was paid.
 */
export class RefundsTables1764400000000 implements MigrationInterface {
  name = 'RefundsTables1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (table: string) => qualified(schema, table);

    await queryRunner.query(`
      CREATE TABLE ${t('payments')} (
        id bigint PRIMARY KEY CHECK (id > 0),
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        source text NOT NULL,
        method text NOT NULL,
        currency text NOT NULL,
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
        net_cents bigint NOT NULL,
        reserved_cents bigint NOT NULL DEFAULT 0,
        refunded_cents bigint NOT NULL DEFAULT 0,
        paid_at timestamptz NOT NULL,
        CONSTRAINT payments_refunds_within_amount CHECK (reserved_cents >= 0 AND reserved_cents <= amount_cents),
        CONSTRAINT payments_refunded_within_reserved CHECK (refunded_cents >= 0 AND refunded_cents <= reserved_cents)
      )`);
    await queryRunner.query(`CREATE INDEX payments_merchant_idx ON ${t('payments')} (merchant_id, environment, paid_at DESC, id DESC)`);

    await queryRunner.query(`
      CREATE TABLE ${t('refunds')} (
        id text PRIMARY KEY,
        payment_id bigint NOT NULL REFERENCES ${t('payments')} (id),
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        currency text NOT NULL,
        reason text NULL,
        status text NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
        failure_reason text NULL,
        idempotency_key text NOT NULL,
        created_at timestamptz NOT NULL,
        completed_at timestamptz NULL,
        -- One refund per key: a command sent again after a lost answer finds the refund it made.
        CONSTRAINT refunds_idempotency_key UNIQUE (merchant_id, environment, idempotency_key)
      )`);
    await queryRunner.query(`CREATE INDEX refunds_merchant_idx ON ${t('refunds')} (merchant_id, environment, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX refunds_payment_idx ON ${t('refunds')} (payment_id, created_at, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'refunds')}`);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'payments')}`);
  }
}
