import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['payment_intents', 'invoices'] as const;

/**
 * The dashboard's filtered lists of intents and invoices, newest first on (created_at, id), a page in a few
 * milliseconds with 100,000 sessions per merchant: the order with its tie-breaker (replacing the index without
 * it), a status filter walking only its status, an exact amount, an exact external_ref. A created_at range walks the
 * first index; an amount range walks it too, filtering (the page fills quickly unless the range is very narrow).
 */
export class ListIndexes1764330000000 implements MigrationInterface {
  name = 'ListIndexes1764330000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    for (const table of TABLES) {
      const t = qualified(schema, table);
      await queryRunner.query(`CREATE INDEX ${table}_list_idx ON ${t} (merchant_id, environment, created_at DESC, id DESC)`);
      await queryRunner.query(`DROP INDEX ${qualified(schema, `${table}_merchant_idx`)}`);
      await queryRunner.query(`CREATE INDEX ${table}_list_status_idx ON ${t} (merchant_id, environment, status, created_at DESC, id DESC)`);
      await queryRunner.query(`CREATE INDEX ${table}_list_amount_idx ON ${t} (merchant_id, environment, amount_cents, created_at DESC, id DESC)`);
      await queryRunner.query(`CREATE INDEX ${table}_list_ref_idx ON ${t} (merchant_id, environment, external_ref, created_at DESC, id DESC) WHERE external_ref IS NOT NULL`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    for (const table of TABLES) {
      await queryRunner.query(`CREATE INDEX ${table}_merchant_idx ON ${qualified(schema, table)} (merchant_id, environment, created_at DESC)`);
      for (const index of ['list_idx', 'list_status_idx', 'list_amount_idx', 'list_ref_idx']) await queryRunner.query(`DROP INDEX ${qualified(schema, `${table}_${index}`)}`);
    }
  }
}
