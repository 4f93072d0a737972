import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints (the gateway's snapshots), the public events received (kept for replays), deliveries with their
 * attempts, and the e-mail outbox of "endpoint disabled" notices, in the schema the DataSource is configured with.
 */
export class WebhooksTables1763900000000 implements MigrationInterface {
  name = 'WebhooksTables1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = (table: string) => qualified(migrationSchema(queryRunner), table);

    await queryRunner.query(`
      CREATE TABLE ${t('endpoints')} (
        id text PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        url text NOT NULL,
        events text[] NULL,
        status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
        secret_encrypted text NOT NULL,
        previous_secret_encrypted text NULL,
        previous_secret_expires_at timestamptz NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        sequence integer NOT NULL CHECK (sequence >= 1),
        deleted_at timestamptz NULL,
        auto_disabled_at timestamptz NULL,
        auto_disabled_reason text NULL CHECK (auto_disabled_reason IN ('gone', 'failing')),
        failing_since timestamptz NULL,
        inactive_since timestamptz NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX endpoints_scope_idx ON ${t('endpoints')} (merchant_id, environment)`);

    await queryRunner.query(`
      CREATE TABLE ${t('events')} (
        id text PRIMARY KEY,
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        type text NOT NULL,
        aggregate_id text NOT NULL,
        sequence integer NOT NULL,
        occurred_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        scheme text NOT NULL CHECK (scheme IN ('intent', 'invoice')),
        body text NOT NULL,
        endpoint_id text NULL
      )`);
    await queryRunner.query(`CREATE INDEX events_scope_time_idx ON ${t('events')} (merchant_id, environment, occurred_at)`);
    await queryRunner.query(`CREATE INDEX events_received_idx ON ${t('events')} (received_at)`);

    await queryRunner.query(`
      CREATE TABLE ${t('deliveries')} (
        id text PRIMARY KEY,
        endpoint_id text NOT NULL REFERENCES ${t('endpoints')} (id),
        event_id text NOT NULL REFERENCES ${t('events')} (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('first', 'resend', 'replay', 'test')),
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NULL,
        locked_until timestamptz NULL,
        lease_token text NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz NULL,
        failure_reason text NULL,
        CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
      )`);
    // One first send per endpoint and event: a re-delivered Kafka message cannot make a second one.
    await queryRunner.query(`CREATE UNIQUE INDEX deliveries_first_send_key ON ${t('deliveries')} (endpoint_id, event_id) WHERE kind = 'first'`);
    await queryRunner.query(`CREATE INDEX deliveries_due_idx ON ${t('deliveries')} (next_attempt_at) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX deliveries_endpoint_idx ON ${t('deliveries')} (endpoint_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX deliveries_event_idx ON ${t('deliveries')} (event_id, endpoint_id)`);

    await queryRunner.query(`
      CREATE TABLE ${t('attempts')} (
        id bigserial PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES ${t('deliveries')} (id) ON DELETE CASCADE,
        attempt_number integer NOT NULL,
        attempted_at timestamptz NOT NULL,
        status_code integer NULL,
        latency_ms integer NULL,
        response_excerpt text NULL,
        error text NULL,
        next_attempt_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX attempts_delivery_idx ON ${t('attempts')} (delivery_id, id)`);

    await queryRunner.query(`
      CREATE TABLE ${t('notifications')} (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        merchant_id text NOT NULL,
        environment text NOT NULL,
        endpoint_id text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX notifications_unsent_idx ON ${t('notifications')} (id) WHERE sent_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const t = (table: string) => qualified(migrationSchema(queryRunner), table);
    for (const table of ['notifications', 'attempts', 'deliveries', 'events', 'endpoints']) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${t(table)}`);
    }
  }
}
