import { migrationSchema, qualified } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The journal's integrity checked once per statement instead of once per row: a posting and its entries are
 * written by one statement (the repository's), and at its end every posting it wrote has balanced entries of its
 * own environment, and every entry it wrote belongs to a posting. Replaces the entries → postings foreign key
 * (a lookup and a row lock on the posting per entry) and the deferred per-posting constraint trigger (a PL/pgSQL
 * call and a query per posting): the same rules, checked once per statement; and an entry added later to an old
 * posting, which the deferred trigger never saw, is checked too.
 */
export class JournalChecksPerStatement1764400000000 implements MigrationInterface {
  name = 'JournalChecksPerStatement1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (table: string) => qualified(schema, table);

    await queryRunner.query(`DROP TRIGGER postings_balanced ON ${t('postings')}`);
    await queryRunner.query(`DROP FUNCTION "${schema}".posting_balanced()`);
    await queryRunner.query(`ALTER TABLE ${t('entries')} DROP CONSTRAINT entries_posting_id_fkey`);

    // Every posting whose entries the statement wrote (new or old) must exist and be balanced, in its environment.
    await queryRunner.query(`
      CREATE FUNCTION "${schema}".entries_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        bad record;
      BEGIN
        SELECT touched.posting_id, p.id IS NULL AS missing, sums.total, sums.n, sums.foreign_entries INTO bad
          FROM (SELECT DISTINCT posting_id FROM added) AS touched
          LEFT JOIN ${t('postings')} p ON p.id = touched.posting_id
          CROSS JOIN LATERAL (
            SELECT coalesce(sum(e.amount_cents), 0) AS total, count(*) AS n,
                   count(*) FILTER (WHERE e.environment IS DISTINCT FROM p.environment) AS foreign_entries
              FROM ${t('entries')} e WHERE e.posting_id = touched.posting_id) AS sums
         WHERE p.id IS NULL OR sums.total <> 0 OR sums.n < 2 OR sums.foreign_entries > 0
         LIMIT 1;
        IF FOUND THEN
          IF bad.missing THEN
            RAISE EXCEPTION 'entries of posting % refused: there is no such posting', bad.posting_id USING ERRCODE = 'foreign_key_violation';
          END IF;
          RAISE EXCEPTION 'posting % is not balanced (sum %, % entries, % in another environment)', bad.posting_id, bad.total, bad.n, bad.foreign_entries
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER entries_balanced AFTER INSERT ON ${t('entries')}
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".entries_balanced()`);

    // Every posting the statement wrote has entries (written by the same statement: a posting is never left empty).
    await queryRunner.query(`
      CREATE FUNCTION "${schema}".postings_have_entries() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        empty text;
      BEGIN
        SELECT a.id INTO empty FROM added a WHERE NOT EXISTS (SELECT 1 FROM ${t('entries')} e WHERE e.posting_id = a.id) LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'posting % is not balanced (no entries: a posting and its entries are written by one statement)', empty
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER postings_have_entries AFTER INSERT ON ${t('postings')}
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".postings_have_entries()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = migrationSchema(queryRunner);
    const t = (table: string) => qualified(schema, table);
    await queryRunner.query(`DROP TRIGGER postings_have_entries ON ${t('postings')}`);
    await queryRunner.query(`DROP TRIGGER entries_balanced ON ${t('entries')}`);
    await queryRunner.query(`DROP FUNCTION "${schema}".postings_have_entries(), "${schema}".entries_balanced()`);
    await queryRunner.query(`ALTER TABLE ${t('entries')} ADD CONSTRAINT entries_posting_id_fkey FOREIGN KEY (posting_id) REFERENCES ${t('postings')} (id)`);
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
}
