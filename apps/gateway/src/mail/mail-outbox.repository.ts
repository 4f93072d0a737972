import { qualified } from '@payments/database';
import type { DataSource, EntityManager } from 'typeorm';
import type { OutgoingMail } from './outgoing-mail';

/** A message as stored, with where its sending stands. */
export interface StoredMail {
  id: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  createdAt: Date;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  sentAt: Date | null;
  givenUpAt: Date | null;
}

interface MailRow {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  html: string | null;
  created_at: Date;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  sent_at: Date | null;
  given_up_at: Date | null;
}

/** What a sent message's text becomes in the outbox. */
export const SENT_TEXT = '(sent; not kept: it may have carried a one-use link or code)';

const COLUMNS = 'id, kind, recipient, subject, text, html, created_at, attempts, next_attempt_at, last_error, sent_at, given_up_at';

function stored(row: MailRow): StoredMail {
  return {
    id: row.id,
    kind: row.kind,
    to: row.recipient,
    subject: row.subject,
    text: row.text,
    html: row.html,
    createdAt: row.created_at,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    sentAt: row.sent_at,
    givenUpAt: row.given_up_at,
  };
}

/** Every query on the gateway's mail_outbox. */
export class MailOutboxRepository {
  private readonly table: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.table = qualified(schema, 'mail_outbox');
  }

  async insert(id: string, mail: OutgoingMail, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(`INSERT INTO ${this.table} (id, kind, recipient, subject, text, html) VALUES ($1, $2, $3, $4, $5, $6)`, [
      id,
      mail.kind,
      mail.to,
      mail.subject,
      mail.text,
      mail.html ?? null,
    ]);
  }

  /**
   * Unsent messages due now, each claimed for `owner` until `leaseUntil` in the same statement (its own short
   * transaction): the row locks skip what another sender is claiming, and the moved next_attempt_at keeps every
   * other sender off until the lease lapses.
   */
  async claimDue(now: Date, limit: number, owner: string, leaseUntil: Date): Promise<StoredMail[]> {
    const [rows] = (await this.dataSource.query(
      `UPDATE ${this.table} SET next_attempt_at = $4, lease_owner = $3
        WHERE id IN (SELECT id FROM ${this.table} WHERE sent_at IS NULL AND given_up_at IS NULL AND next_attempt_at <= $1
                      ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [now, limit, owner, leaseUntil],
    )) as [MailRow[], number];
    return rows.map(stored);
  }

  /** Renews `owner`'s claims on these unsent messages until `until` (never moves one back). */
  async extendClaims(ids: readonly string[], owner: string, until: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.table} SET next_attempt_at = GREATEST(next_attempt_at, $3)
        WHERE id = ANY($1::text[]) AND lease_owner = $2 AND sent_at IS NULL AND given_up_at IS NULL`,
      [ids, owner, until],
    );
  }

  /**
   * The SMTP server took it: sent, whoever holds the claim now (it must not go again). Its text goes: it carried
   * one-use links and codes (password reset, invitation, wallet sign-in) that the tables of tokens and codes keep
   * only as hashes; the kind, recipient, subject and times stay for an operator.
   */
  async markSent(id: string, attempts: number, at: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.table} SET sent_at = $2, attempts = $3, lease_owner = NULL, last_error = NULL, text = $4, html = NULL WHERE id = $1 AND sent_at IS NULL`,
      [id, at, attempts, SENT_TEXT],
    );
  }

  /** A failed attempt of `owner`'s: the next one at `retryAt`, or given up (null). False when the claim was lost meanwhile. */
  async markFailed(id: string, owner: string, attempts: number, error: string, retryAt: Date | null, at: Date): Promise<boolean> {
    const [, affected] = (await this.dataSource.query(
      `UPDATE ${this.table}
          SET attempts = $3, last_error = $4, next_attempt_at = COALESCE($5::timestamptz, next_attempt_at),
              given_up_at = CASE WHEN $5::timestamptz IS NULL THEN $6::timestamptz END,
              lease_owner = NULL
        WHERE id = $1 AND lease_owner = $2 AND sent_at IS NULL AND given_up_at IS NULL`,
      [id, owner, attempts, error.slice(0, 1000), retryAt, at],
    )) as [unknown, number];
    return affected > 0;
  }

  /** Newest first, optionally to one address (the development mail page). */
  async list(limit: number, to?: string): Promise<StoredMail[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE ($2::text IS NULL OR lower(recipient) = lower($2)) ORDER BY created_at DESC, id DESC LIMIT $1`,
      [limit, to ?? null],
    )) as MailRow[];
    return rows.map(stored);
  }

  async find(id: string): Promise<StoredMail | null> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE id = $1`, [id])) as MailRow[];
    return rows[0] ? stored(rows[0]) : null;
  }
}
