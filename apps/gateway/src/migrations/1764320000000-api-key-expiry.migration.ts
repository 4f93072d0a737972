import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A rolled key's end of overlap: it works until then and is refused like a revoked key after. */
export class ApiKeyExpiry1764320000000 implements MigrationInterface {
  name = 'ApiKeyExpiry1764320000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`ALTER TABLE ${s}.api_keys ADD COLUMN expires_at timestamptz NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`ALTER TABLE ${s}.api_keys DROP COLUMN IF EXISTS expires_at`);
  }
}
