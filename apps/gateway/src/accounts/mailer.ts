import type { EntityManager } from 'typeorm';

/** One e-mail as the outbox takes it (apps/gateway/src/mail). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  kind: string;
}

/**
 * Where the accounts send mail: the gateway's mail outbox. Given a manager, the mail is written in the caller's
 * transaction, so a link is mailed exactly when the token it carries was committed.
 */
export interface Mailer {
  enqueue(mail: OutgoingMail, manager?: EntityManager): Promise<unknown>;
}
