import { BASE62_ALPHABET } from '@payments/ids';
import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `random_base62(n)`: n characters drawn as `randomBase62` draws them (a strong random byte, those at or above 248
 * dropped so every character is equally likely), from `gen_random_uuid`'s bytes less the two that carry its
 * version and variant. A run's events, their first deliveries and the workers' wake-up are then one statement:
 * the delivery ids (`wd_` + 24 characters, as the service makes them) are drawn where the deliveries are written.
 */
export class DeliveryIdsInSql1763970000000 implements MigrationInterface {
  name = 'DeliveryIdsInSql1763970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION ${qualified(migrationSchema(queryRunner), 'random_base62')}(n integer) RETURNS text
      LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $$
      DECLARE
        drawn text := '';
        bytes bytea;
        b integer;
      BEGIN
        WHILE length(drawn) < n LOOP
          bytes := uuid_send(gen_random_uuid());
          FOR i IN 0..15 LOOP
            CONTINUE WHEN i = 6 OR i = 8;
            b := get_byte(bytes, i);
            CONTINUE WHEN b >= 248;
            drawn := drawn || substr('${BASE62_ALPHABET}', b % 62 + 1, 1);
            EXIT WHEN length(drawn) = n;
          END LOOP;
        END LOOP;
        RETURN drawn;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION ${qualified(migrationSchema(queryRunner), 'random_base62')}(integer)`);
  }
}
