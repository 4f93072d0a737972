import { migrationSchema } from '@payments/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * E-mail to merchants, written in the transaction of what it tells and sent by the MailSender. `next_attempt_at`
 * doubles as the claim: a sender moves it a short lease ahead (lease_owner says whose) and renews it while it
 * talks to the SMTP server, so a sender that dies leaves its messages due again within seconds.
 */
export class MailOutbox1764300000000 implements MigrationInterface {
  name = 'MailOutbox1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = `"${migrationSchema(queryRunner)}"`;
    await queryRunner.query(`
      CREATE TABLE ${s}.mail_outbox (
        id text PRIMARY KEY CHECK (id ~ '^mail_[A-Za-z0-9]{24}$'),
        kind text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]{0,39}$'),
        recipient text NOT NULL CHECK (length(recipient) BETWEEN 3 AND 254),
        subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
        text text NOT NULL CHECK (length(text) BETWEEN 1 AND 100000),
        html text NULL CHECK (length(html) <= 200000),
        created_at timestamptz NOT NULL DEFAULT now(),
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        lease_owner text NULL,
        last_error text NULL,
        sent_at timestamptz NULL,
        given_up_at timestamptz NULL,
        CHECK (sent_at IS NULL OR given_up_at IS NULL)
      )`);
    await queryRunner.query(`CREATE INDEX mail_outbox_due_idx ON ${s}.mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND given_up_at IS NULL`);
    await queryRunner.query(`CREATE INDEX mail_outbox_created_idx ON ${s}.mail_outbox (created_at DESC, id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "${migrationSchema(queryRunner)}".mail_outbox`);
  }
}
