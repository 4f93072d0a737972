import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Provider checks that must not pile up. An attempt being verified carries a short lease (`verifying_until`, renewed
 * by the instance verifying it, named by `verifying_token`), so a storm of notifications, or the background check
 * beside them, makes one verify at a time per attempt, and a crashed owner frees it within seconds. A refund whose
 * re-sent request the provider refused (`resend_refused`, its words) may have been made by the first request: it is
 * looked for in the provider's list, and failed with those words only once the list has long not shown it.
 */
export class ProviderChecks1764300000000 implements MigrationInterface {
  name = 'ProviderChecks1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`ALTER TABLE ${qualified(schema, 'provider_attempts')} ADD COLUMN verifying_until timestamptz NULL, ADD COLUMN verifying_token text NULL`);
    await queryRunner.query(`ALTER TABLE ${qualified(schema, 'provider_refunds')} ADD COLUMN resend_refused text NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`ALTER TABLE ${qualified(schema, 'provider_refunds')} DROP COLUMN resend_refused`);
    await queryRunner.query(`ALTER TABLE ${qualified(schema, 'provider_attempts')} DROP COLUMN verifying_until, DROP COLUMN verifying_token`);
  }
}
