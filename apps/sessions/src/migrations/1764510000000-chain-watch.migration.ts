import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chain watcher's tables. Progress per chain (every block below next_block scanned), the hashes of the recent
 * scanned blocks (a reorg is a stored hash the chain no longer has), and the transfers to deposit addresses keyed
 * by (chain_id, tx_hash, log_index): seen, counted (handed to sessions once), or reversed (counted, then taken back
 * by a reorg). Token amounts are integer base units in numeric (an 18-decimal token's amounts pass bigint's range).
 */
export class ChainWatch1764510000000 implements MigrationInterface {
  name = 'ChainWatch1764510000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(
      `CREATE TABLE ${qualified(schema, 'chain_watch_progress')} (
         chain_id integer PRIMARY KEY,
         chain_name text NOT NULL,
         next_block bigint NOT NULL CHECK (next_block >= 0),
         head_block bigint NULL,
         steps bigint NOT NULL DEFAULT 0,
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    await queryRunner.query(
      `CREATE TABLE ${qualified(schema, 'chain_watch_blocks')} (
         chain_id integer NOT NULL,
         block_number bigint NOT NULL,
         block_hash text NOT NULL,
         PRIMARY KEY (chain_id, block_number)
       )`,
    );
    await queryRunner.query(
      `CREATE TABLE ${qualified(schema, 'chain_watch_transfers')} (
         chain_id integer NOT NULL,
         tx_hash text NOT NULL,
         log_index integer NOT NULL,
         token text NOT NULL,
         from_address text NOT NULL,
         to_address text NOT NULL,
         units numeric(78, 0) NOT NULL CHECK (units >= 0),
         environment text NOT NULL CHECK (environment IN ('test', 'live')),
         session_id text NOT NULL,
         state text NOT NULL CHECK (state IN ('seen', 'counted', 'reversed')),
         block_number bigint NULL,
         block_hash text NULL,
         dropped_from bigint NULL,
         seen_at timestamptz NOT NULL DEFAULT now(),
         counted_at timestamptz NULL,
         reversed_at timestamptz NULL,
         PRIMARY KEY (chain_id, tx_hash, log_index),
         CHECK (state <> 'seen' OR block_number IS NOT NULL)
       )`,
    );
    // What a step loads: the transfers a reorg can still touch (seen, dropped, or in recent blocks).
    await queryRunner.query(`CREATE INDEX chain_watch_transfers_open ON ${qualified(schema, 'chain_watch_transfers')} (chain_id) WHERE state = 'seen' OR block_number IS NULL`);
    await queryRunner.query(`CREATE INDEX chain_watch_transfers_block ON ${qualified(schema, 'chain_watch_transfers')} (chain_id, block_number)`);
    await queryRunner.query(`CREATE INDEX chain_watch_transfers_session ON ${qualified(schema, 'chain_watch_transfers')} (session_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'chain_watch_transfers')}`);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'chain_watch_blocks')}`);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'chain_watch_progress')}`);
  }
}
