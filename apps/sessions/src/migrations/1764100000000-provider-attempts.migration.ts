import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A payment attempt at a provider (one Lahza transaction): its reference is ours, so a callback or notification
 * names the attempt and through it the session. Open attempts are verified again in the background until they
 * resolve, so a customer who never comes back, or a verify that could not be reached, still ends in a state.
 */
export class ProviderAttempts1764100000000 implements MigrationInterface {
  name = 'ProviderAttempts1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = qualified(migrationSchema(queryRunner), 'provider_attempts');
    await queryRunner.query(`
      CREATE TABLE ${table} (
        reference text PRIMARY KEY,
        provider text NOT NULL,
        session_kind text NOT NULL CHECK (session_kind IN ('payment_intent', 'invoice')),
        session_id text NOT NULL,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        method text NOT NULL,
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        redirect_url text NOT NULL,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'succeeded', 'failed')),
        failure_reason text NULL,
        payment_id text NULL,
        checks integer NOT NULL DEFAULT 0,
        next_check_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz NULL
      )`);
    // One open attempt per session: a second tab or a double click is sent to the same provider page.
    await queryRunner.query(`CREATE UNIQUE INDEX provider_attempts_one_open ON ${table} (session_id) WHERE status = 'open'`);
    await queryRunner.query(`CREATE INDEX provider_attempts_due ON ${table} (next_check_at) WHERE status = 'open'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${qualified(migrationSchema(queryRunner), 'provider_attempts')}`);
  }
}
