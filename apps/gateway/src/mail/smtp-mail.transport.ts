import { createTransport, type Transporter } from 'nodemailer';

/** One message as it goes out. */
export interface MailToSend {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

/** Why a send failed, and whether another try can change it. */
export class MailSendFailed extends Error {
  constructor(
    message: string,
    /** The server refused the recipient for good (a 5xx answer to RCPT TO): retrying cannot help. */
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'MailSendFailed';
  }
}

export interface MailTransport {
  /** Resolves once the server took the message; rejects with MailSendFailed otherwise. */
  send(mail: MailToSend): Promise<void>;
  close(): void;
}

/** Mail over SMTP with nodemailer, one connection per message (a dead server costs one refused connect, no pool to heal). */
export class SmtpMailTransport implements MailTransport {
  private readonly transporter: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transporter = createTransport({
      url: smtpUrl,
      // A server that hangs costs a send these, then a retry; never a stuck sender.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  }

  async send(mail: MailToSend): Promise<void> {
    try {
      await this.transporter.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html === null ? {} : { html: mail.html }),
        // The outbox id: the same message tried again carries the same Message-ID.
        messageId: `<${mail.id}@${domainOf(this.from)}>`,
      });
    } catch (error) {
      const smtp = error as { responseCode?: number; command?: string; message?: string };
      const permanent = typeof smtp.responseCode === 'number' && smtp.responseCode >= 500 && smtp.command === 'RCPT TO';
      throw new MailSendFailed(describe(smtp), permanent);
    }
  }

  close(): void {
    this.transporter.close();
  }
}

function domainOf(from: string): string {
  return /@([^\s<>@]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}

function describe(error: { responseCode?: number; command?: string; message?: string }): string {
  const message = error.message ?? String(error);
  return error.command ? `${error.command}: ${message}` : message;
}
