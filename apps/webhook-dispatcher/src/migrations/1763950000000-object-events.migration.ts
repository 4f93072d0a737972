import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The dashboard's deliveries of one object: its events found by aggregate id within the merchant's scope. */
export class ObjectEvents1763950000000 implements MigrationInterface {
  name = 'ObjectEvents1763950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = (name: string) => qualified(migrationSchema(queryRunner), name);
    await queryRunner.query(`CREATE INDEX events_aggregate_idx ON ${t('events')} (merchant_id, environment, aggregate_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ${qualified(migrationSchema(queryRunner), 'events_aggregate_idx')}`);
  }
}
