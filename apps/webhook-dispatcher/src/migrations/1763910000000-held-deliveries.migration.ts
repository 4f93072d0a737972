import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries of a failing endpoint are "held": out of the shared index of due deliveries, in one of their
 * endpoint's own. A dead endpoint's backlog (one attempt at a time) then costs a claim one index probe instead
 * of a scan past every row of it.
 */
export class HeldDeliveries1763910000000 implements MigrationInterface {
  name = 'HeldDeliveries1763910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (name: string) => qualified(schema, name);
    await queryRunner.query(`ALTER TABLE ${t('deliveries')} ADD COLUMN held boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`DROP INDEX ${t('deliveries_due_idx')}`);
    await queryRunner.query(`CREATE INDEX deliveries_due_idx ON ${t('deliveries')} (next_attempt_at) WHERE status = 'pending' AND NOT held`);
    // Per endpoint, held or not: the claim's probe of a failing endpoint (held, oldest first), and holding or
    // releasing one endpoint's pending deliveries, each read only that endpoint's pending rows.
    await queryRunner.query(`CREATE INDEX deliveries_pending_endpoint_idx ON ${t('deliveries')} (endpoint_id, held, next_attempt_at) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX endpoints_failing_idx ON ${t('endpoints')} (id) WHERE failing_since IS NOT NULL`);
    await queryRunner.query(
      `UPDATE ${t('deliveries')} d SET held = true FROM ${t('endpoints')} ep
       WHERE ep.id = d.endpoint_id AND ep.failing_since IS NOT NULL AND d.status = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (name: string) => qualified(schema, name);
    await queryRunner.query(`DROP INDEX ${t('endpoints_failing_idx')}`);
    await queryRunner.query(`DROP INDEX ${t('deliveries_pending_endpoint_idx')}`);
    await queryRunner.query(`DROP INDEX ${t('deliveries_due_idx')}`);
    await queryRunner.query(`CREATE INDEX deliveries_due_idx ON ${t('deliveries')} (next_attempt_at) WHERE status = 'pending'`);
    await queryRunner.query(`ALTER TABLE ${t('deliveries')} DROP COLUMN held`);
  }
}
