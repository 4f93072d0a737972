import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Idempotency claims by age: the pruning of claims past the retention reads only those. */
export class IdempotencyKeyAge1764000000000 implements MigrationInterface {
  name = 'IdempotencyKeyAge1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`CREATE INDEX idempotency_keys_created_at_idx ON ${qualified(schema, 'idempotency_keys')} (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP INDEX ${qualified(schema, 'idempotency_keys_created_at_idx')}`);
  }
}
