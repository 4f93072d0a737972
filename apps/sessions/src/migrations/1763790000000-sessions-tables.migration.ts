import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const LIVE_INTENT_STATUSES = `('requires_payment_method', 'processing', 'failed')`;
const LIVE_INVOICE_STATUSES = `('pending', 'failed')`;
/** The columns both read models end with: reference, payment, times, version and the resource as GET shows it. */
const READ_MODEL_COLUMNS = `external_ref text NULL,
        payment_id bigint NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        paid_at timestamptz NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        resource jsonb NOT NULL`;

/**
 * The event store of payment intents and invoices, their read models, payments, the creation idempotency keys
 * and the invoice number counters, in the schema the DataSource is configured with.
 */
export class SessionsTables1763790000000 implements MigrationInterface {
  name = 'SessionsTables1763790000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (table: string) => qualified(schema, table);

    await queryRunner.query(`
      CREATE TABLE ${t('events')} (
        position bigserial PRIMARY KEY,
        stream_id text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        CONSTRAINT events_stream_version_key UNIQUE (stream_id, version)
      )`);
    // Append-only, enforced where every writer passes: history is never rewritten, state moves forward.
    await queryRunner.query(`
      CREATE FUNCTION "${schema}".events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'events are append-only (% refused)', TG_OP;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON ${t('events')}
      FOR EACH ROW EXECUTE FUNCTION "${schema}".events_append_only()`);

    await queryRunner.query(`
      CREATE TABLE ${t('payment_intents')} (
        id text PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        status text NOT NULL
          CHECK (status IN ('requires_payment_method', 'processing', 'succeeded', 'failed', 'cancelled', 'expired')),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        currency text NOT NULL,
        payment_method text NULL,
        ${READ_MODEL_COLUMNS}
      )`);
    await queryRunner.query(
      `CREATE INDEX payment_intents_merchant_idx ON ${t('payment_intents')} (merchant_id, environment, created_at DESC)`,
    );
    // The expiry job's scan: only rows that can still expire, in due order.
    await queryRunner.query(
      `CREATE INDEX payment_intents_due_idx ON ${t('payment_intents')} (expires_at) WHERE status IN ${LIVE_INTENT_STATUSES}`,
    );

    await queryRunner.query(`
      CREATE TABLE ${t('invoices')} (
        id text PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        number bigint NOT NULL CHECK (number >= 1),
        status text NOT NULL CHECK (status IN ('pending', 'paid', 'failed', 'expired')),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        currency text NOT NULL,
        ${READ_MODEL_COLUMNS},
        CONSTRAINT invoices_number_key UNIQUE (merchant_id, environment, number)
      )`);
    await queryRunner.query(`CREATE INDEX invoices_merchant_idx ON ${t('invoices')} (merchant_id, environment, created_at DESC)`);
    await queryRunner.query(`CREATE INDEX invoices_due_idx ON ${t('invoices')} (expires_at) WHERE status IN ${LIVE_INVOICE_STATUSES}`);

    await queryRunner.query(`
      CREATE TABLE ${t('payments')} (
        id bigint PRIMARY KEY CHECK (id > 0),
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        source_type text NOT NULL CHECK (source_type IN ('payment_intent', 'invoice')),
        source_id text NOT NULL,
        method text NOT NULL,
        currency text NOT NULL,
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
        net_cents bigint NOT NULL,
        paid_at timestamptz NOT NULL,
        CONSTRAINT payments_net_check CHECK (net_cents = amount_cents - fee_cents),
        -- An intent or invoice is paid once.
        CONSTRAINT payments_source_key UNIQUE (source_type, source_id)
      )`);
    await queryRunner.query(`CREATE INDEX payments_merchant_idx ON ${t('payments')} (merchant_id, environment, paid_at DESC)`);

    await queryRunner.query(`
      CREATE TABLE ${t('idempotency_keys')} (
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 190),
        object_type text NOT NULL CHECK (object_type IN ('payment_intent', 'invoice')),
        object_id text NOT NULL,
        fingerprint text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT idempotency_keys_scope_key UNIQUE (merchant_id, environment, key)
      )`);

    await queryRunner.query(`
      CREATE TABLE ${t('invoice_counters')} (
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        last_number bigint NOT NULL CHECK (last_number >= 1),
        PRIMARY KEY (merchant_id, environment)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    for (const table of ['invoice_counters', 'idempotency_keys', 'payments', 'invoices', 'payment_intents', 'events']) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${qualified(schema, table)}`);
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS "${schema}".events_append_only()`);
  }
}
