import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The endpoints that have held deliveries, found one index probe each (DeliveriesRepository.releaseRecovered):
 * the pass that puts back those of endpoints healthy again runs every second, so it must not read a dead
 * endpoint's backlog, nor the pending deliveries of healthy ones, to find them.
 */
export class HeldByEndpoint1763940000000 implements MigrationInterface {
  name = 'HeldByEndpoint1763940000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = (name: string) => qualified(migrationSchema(queryRunner), name);
    await queryRunner.query(`CREATE INDEX deliveries_held_endpoint_idx ON ${t('deliveries')} (endpoint_id) WHERE status = 'pending' AND held`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ${qualified(migrationSchema(queryRunner), 'deliveries_held_endpoint_idx')}`);
  }
}
