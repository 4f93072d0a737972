import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The journal (postings and their entries, append-only and balanced, enforced here where every writer passes)
 * and the balances kept current beside it, in the schema the DataSource is configured with.
 */
export class LedgerTables1764300000000 implements MigrationInterface {
  name = 'LedgerTables1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (table: string) => qualified(schema, table);

    await queryRunner.query(`
      CREATE TABLE ${t('postings')} (
        id text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('payment', 'refund', 'adjustment')),
        merchant_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        source text NOT NULL,
        payment_id text NULL,
        amount_cents bigint NOT NULL,
        fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
        net_cents bigint NOT NULL,
        event_id text NULL,
        description text NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    // One posting per payment and per refund, whatever event or retry asks again.
    await queryRunner.query(`CREATE UNIQUE INDEX postings_payment_once ON ${t('postings')} (payment_id) WHERE kind = 'payment'`);
    await queryRunner.query(`CREATE UNIQUE INDEX postings_refund_once ON ${t('postings')} (source) WHERE kind = 'refund'`);
    // A merchant's balance transactions, newest first.
    await queryRunner.query(`CREATE INDEX postings_merchant_idx ON ${t('postings')} (merchant_id, environment, created_at DESC, id DESC)`);

    await queryRunner.query(`
      CREATE TABLE ${t('entries')} (
        posting_id text NOT NULL REFERENCES ${t('postings')} (id),
        account text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        amount_cents bigint NOT NULL CHECK (amount_cents <> 0),
        PRIMARY KEY (posting_id, account),
        -- An account id names its environment (merchant:env:kind, platform:env:kind): an entry cannot cross over.
        CONSTRAINT entries_account_environment CHECK (split_part(account, ':', 2) = environment)
      )`);
    await queryRunner.query(`CREATE INDEX entries_account_idx ON ${t('entries')} (account)`);

    // Balances: the sum of each account's entries, kept in the posting's transaction. A hot account (touched by
    // every posting) is spread over shards, so concurrent writers do not queue on one row; its balance is the
    // sum of its shards.
    await queryRunner.query(`
      CREATE TABLE ${t('balances')} (
        account text NOT NULL,
        shard smallint NOT NULL CHECK (shard >= 0),
        sum_cents bigint NOT NULL,
        PRIMARY KEY (account, shard)
      )`);

    // Append-only: entries and postings are never updated, deleted or truncated.
    await queryRunner.query(`
      CREATE FUNCTION "${schema}".journal_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'the ledger journal is append-only (% on % refused)', TG_OP, TG_TABLE_NAME
          USING ERRCODE = 'restrict_violation';
      END $$`);
    for (const table of ['postings', 'entries']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${t(table)}
        FOR EACH ROW EXECUTE FUNCTION "${schema}".journal_append_only()`);
      await queryRunner.query(`
        CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${t(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".journal_append_only()`);
    }

    // Balanced: checked when the posting's transaction commits (its entries are written after it), so no writer
    // can leave a posting whose entries do not sum to zero, sit on one account, or mix environments.
    await queryRunner.query(`
      CREATE FUNCTION "${schema}".posting_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        total numeric;
        n integer;
        foreign_entries integer;
      BEGIN
        SELECT coalesce(sum(amount_cents), 0), count(*), count(*) FILTER (WHERE environment <> NEW.environment)
          INTO total, n, foreign_entries
          FROM ${t('entries')} WHERE posting_id = NEW.id;
        IF total <> 0 OR n < 2 OR foreign_entries > 0 THEN
          RAISE EXCEPTION 'posting % is not balanced (sum %, % entries, % in another environment)', NEW.id, total, n, foreign_entries
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER postings_balanced AFTER INSERT ON ${t('postings')}
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "${schema}".posting_balanced()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    await queryRunner.query(`DROP TABLE ${qualified(schema, 'balances')}, ${qualified(schema, 'entries')}, ${qualified(schema, 'postings')}`);
    await queryRunner.query(`DROP FUNCTION "${schema}".journal_append_only(), "${schema}".posting_balanced()`);
  }
}
