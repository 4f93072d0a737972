import { randomBase62 } from '@payments/ids';
import type { EntityManager } from 'typeorm';
import type { MailOutboxRepository } from './mail-outbox.repository';
import { assertValidMail, type OutgoingMail } from './outgoing-mail';

export const MAIL_ID = /^mail_[A-Za-z0-9]{24}$/;

/**
 * Where the gateway's e-mail goes first: a row in mail_outbox, written in the caller's transaction when it gives
 * its manager (so the message exists exactly when what it tells committed), sent afterwards by the MailSender.
 */
export class MailOutbox {
  private readonly written = new Set<() => void>();

  constructor(private readonly repository: MailOutboxRepository) {}

  /** Stores the message for sending; answers its id. Throws InvalidMail for a message that cannot be sent as given. */
  async enqueue(mail: OutgoingMail, manager?: EntityManager): Promise<string> {
    assertValidMail(mail);
    const id = `mail_${randomBase62(24)}`;
    await this.repository.insert(id, mail, manager);
    // Committed already without a manager: this instance's sender goes at once. In a caller's transaction the
    // next look (MAIL_POLL_MS) finds it once committed.
    if (!manager) for (const wake of this.written) wake();
    return id;
  }

  /** Calls `wake` after each message written outside a caller's transaction; answers how to stop. */
  onWritten(wake: () => void): () => void {
    this.written.add(wake);
    return () => this.written.delete(wake);
  }
}
