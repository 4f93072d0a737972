import type { MigrationInterface, QueryRunner } from 'typeorm';
import { migrationSchema, qualified } from '@payments/database';

/**
 * Index for the consumer's periodic inbox pruning (rows of one consumer older than the retention), so deleting
 * them reads only those rows instead of the whole inbox.
 */
export class InboxPruningIndex1763856000000 implements MigrationInterface {
  name = 'InboxPruningIndex1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS inbox_handled_at_idx ON ${qualified(migrationSchema(queryRunner), 'inbox')} (consumer, handled_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS ${qualified(migrationSchema(queryRunner), 'inbox_handled_at_idx')}`);
  }
}
