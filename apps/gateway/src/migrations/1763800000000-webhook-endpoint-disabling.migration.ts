import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Why and when the webhook-dispatcher disabled an endpoint (410, or failing for 5 days), as the merchant sees it. */
export class WebhookEndpointDisabling1763800000000 implements MigrationInterface {
  name = 'WebhookEndpointDisabling1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`
      ALTER TABLE ${s}.webhook_endpoints
        ADD COLUMN disabled_reason text NULL CHECK (disabled_reason IN ('gone', 'failing')),
        ADD COLUMN disabled_at timestamptz NULL,
        ADD CHECK ((disabled_reason IS NULL) = (disabled_at IS NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`ALTER TABLE ${s}.webhook_endpoints DROP COLUMN IF EXISTS disabled_reason, DROP COLUMN IF EXISTS disabled_at`);
  }
}
