import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Crypto deposit addresses: one per payment intent that chose crypto, derived from the environment's extended public
 * key at the next index of that environment's sequence. The address is the key (lower-case hex) and the session is
 * unique, so two sessions never share an address and a session never has two. `expires_at` is the session's: the
 * watcher's list keeps an address for a while after it (late and extra transfers are still seen).
 */
export class CryptoAddresses1764600000000 implements MigrationInterface {
  name = 'CryptoAddresses1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    for (const environment of ['test', 'live']) {
      await queryRunner.query(`CREATE SEQUENCE IF NOT EXISTS ${qualified(schema, `crypto_address_index_${environment}`)} AS bigint MINVALUE 0 START WITH 0`);
    }
    await queryRunner.query(
      `CREATE TABLE ${qualified(schema, 'crypto_addresses')} (
         address text PRIMARY KEY CHECK (address ~ '^0x[0-9a-f]{40}$'),
         environment text NOT NULL CHECK (environment IN ('test', 'live')),
         session_id text NOT NULL CONSTRAINT crypto_addresses_session_key UNIQUE,
         derivation_index bigint NOT NULL CHECK (derivation_index >= 0 AND derivation_index < 2147483648),
         assigned_at timestamptz NOT NULL,
         expires_at timestamptz NOT NULL,
         CONSTRAINT crypto_addresses_index_key UNIQUE (environment, derivation_index)
       )`,
    );
    // The watcher's list: the addresses of an environment still watched, by expiry.
    await queryRunner.query(`CREATE INDEX crypto_addresses_watch_idx ON ${qualified(schema, 'crypto_addresses')} (environment, expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'crypto_addresses')}`);
    for (const environment of ['test', 'live']) await queryRunner.query(`DROP SEQUENCE ${qualified(schema, `crypto_address_index_${environment}`)}`);
  }
}
