import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds asked of a provider for the refunds service, one row per refund id, written before the provider is
 * called: a command sent again (a lost answer, the background check) finds the row and never asks the provider for
 * a second refund. `requested_at` is set while a create request may have reached the provider without its answer
 * reaching us; such a refund is looked for in the provider's list of the transaction's refunds before any new request.
 */
export class ProviderRefunds1764200000000 implements MigrationInterface {
  name = 'ProviderRefunds1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const table = qualified(schema, 'provider_refunds');
    await queryRunner.query(`
      CREATE TABLE ${table} (
        refund_id text PRIMARY KEY,
        reference text NOT NULL REFERENCES ${qualified(schema, 'provider_attempts')} (reference),
        provider text NOT NULL,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        payment_id text NOT NULL,
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        provider_refund_id text NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed')),
        failure_reason text NULL,
        requested_at timestamptz NULL,
        requests integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz NULL
      )`);
    // A provider's refund is ours once: two of our refunds never claim the same one.
    await queryRunner.query(`CREATE UNIQUE INDEX provider_refunds_provider_id ON ${table} (provider, provider_refund_id) WHERE provider_refund_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX provider_refunds_reference ON ${table} (reference)`);
    // The attempt that made a payment, found by the payment's id.
    await queryRunner.query(`CREATE INDEX provider_attempts_payment ON ${qualified(schema, 'provider_attempts')} (payment_id) WHERE payment_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP INDEX ${qualified(schema, 'provider_attempts_payment')}`);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'provider_refunds')}`);
  }
}
