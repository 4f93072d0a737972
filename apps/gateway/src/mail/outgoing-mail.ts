/** What the gateway e-mails merchants about; a new use adds its kind here. */
export type MailKind = 'confirm_email' | 'password_reset' | 'unlock' | 'invitation' | 'wallet_code' | 'endpoint_disabled' | (string & {});

/** One message to one recipient, as a caller hands it to MailOutbox.enqueue. */
export interface OutgoingMail {
  /** One address (`shop@example.com`); never a list, never a display name. */
  to: string;
  subject: string;
  /** The plain-text body (always sent); `html` is an optional alternative of the same content. */
  text: string;
  html?: string;
  kind: MailKind;
}

export const MAIL_LIMITS = { recipient: 254, subject: 200, text: 100_000, html: 200_000 } as const;

/** A message the outbox refuses: a caller's mistake, never the recipient's. */
export class InvalidMail extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMail';
  }
}

// One address, local@domain, nothing that could start a second header or a second recipient.
const ADDRESS = /^[^\s<>()[\],;:"@\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const KIND = /^[a-z][a-z0-9_]{0,39}$/;

/** Throws InvalidMail when the message cannot be sent as given. */
export function assertValidMail(mail: OutgoingMail): void {
  if (typeof mail.to !== 'string' || mail.to.length > MAIL_LIMITS.recipient || !ADDRESS.test(mail.to)) {
    throw new InvalidMail(`recipient must be one e-mail address of at most ${MAIL_LIMITS.recipient} characters`);
  }
  if (typeof mail.subject !== 'string' || mail.subject.trim() === '' || mail.subject.length > MAIL_LIMITS.subject || /[\r\n]/.test(mail.subject)) {
    throw new InvalidMail(`subject must be one line of 1 to ${MAIL_LIMITS.subject} characters`);
  }
  if (typeof mail.text !== 'string' || mail.text === '' || mail.text.length > MAIL_LIMITS.text) {
    throw new InvalidMail(`text must be 1 to ${MAIL_LIMITS.text} characters`);
  }
  if (mail.html !== undefined && (typeof mail.html !== 'string' || mail.html.length > MAIL_LIMITS.html)) {
    throw new InvalidMail(`html must be at most ${MAIL_LIMITS.html} characters`);
  }
  if (typeof mail.kind !== 'string' || !KIND.test(mail.kind)) throw new InvalidMail('kind must be a lower-case name like confirm_email');
}
