import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Wakeup } from '@payments/messaging';
import { CLAIM_LEASE_MS, keepingClaims } from '@payments/platform';
import { mailAttemptsFailed, mailGivenUp, mailSent } from './mail-metrics';
import type { MailOutbox } from './mail-outbox';
import type { MailOutboxRepository, StoredMail } from './mail-outbox.repository';
import { nextMailAttempt } from './mail-retry.policy';
import { MailSendFailed, type MailTransport } from './smtp-mail.transport';

export interface MailSenderSettings {
  /** Who holds the claims of this sender (unique per process). */
  owner: string;
  pollMs: number;
  delaysMs: readonly number[];
  giveUpAfterMs: number;
  /** Messages claimed at once; each is sent in turn under a lease the sender renews. */
  batch?: number;
}

const DEFAULT_BATCH = 10;

/**
 * Sends the mail outbox: claims due messages (any number of gateway instances share the table; each message is
 * claimed by one at a time), hands each to the transport, and marks it sent, or failed with its next try on the
 * retry schedule, or given up, loudly, past its deadline. A message is sent again only when a sender died
 * between the server taking it and marking it sent.
 */
export class MailSender implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MailSender');
  private readonly wakeup = new Wakeup();
  private stopped = false;
  private loop?: Promise<void>;
  private unsubscribe?: () => void;

  constructor(
    private readonly repository: MailOutboxRepository,
    private readonly transport: MailTransport,
    private readonly outbox: MailOutbox,
    private readonly settings: MailSenderSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.outbox.onWritten(() => this.wakeup.notify());
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wakeup.notify();
    await this.loop;
    this.transport.close();
  }

  private async run(): Promise<void> {
    const batch = this.settings.batch ?? DEFAULT_BATCH;
    while (!this.stopped) {
      let claimed = 0;
      try {
        claimed = await this.sendDue(batch);
      } catch (error) {
        this.logger.error({ err: error }, 'sending mail failed; trying again shortly');
      }
      // A full batch: more may be due at once.
      if (claimed < batch && !this.stopped) await this.wakeup.wait(this.settings.pollMs);
    }
  }

  /** One pass: claims up to `limit` due messages and tries each; answers how many it claimed. */
  async sendDue(limit: number): Promise<number> {
    const { owner } = this.settings;
    const now = new Date();
    const due = await this.repository.claimDue(now, limit, owner, new Date(now.getTime() + CLAIM_LEASE_MS));
    if (due.length === 0) return 0;
    const renewal = {
      extend: (ids: readonly string[], until: Date) => this.repository.extendClaims(ids, owner, until),
      onRenewalError: (error: unknown) => this.logger.warn({ err: error }, 'renewing the claims on mail being sent failed; renewed again shortly'),
    };
    await keepingClaims(
      due.map((mail) => mail.id),
      renewal,
      async (claims) => {
        for (const mail of due) {
          if (this.stopped) break;
          try {
            await this.attempt(mail);
          } finally {
            claims.release(mail.id);
          }
        }
      },
    );
    // Left unsent at shutdown: its claim lapses within CLAIM_LEASE_MS and another instance (or the next start) sends it.
    return due.length;
  }

  private async attempt(mail: StoredMail): Promise<void> {
    const attempts = mail.attempts + 1;
    try {
      await this.transport.send(mail);
    } catch (error) {
      await this.failed(mail, attempts, error);
      return;
    }
    await this.repository.markSent(mail.id, attempts, new Date());
    mailSent.inc({ kind: mail.kind });
  }

  private async failed(mail: StoredMail, attempts: number, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    const permanent = error instanceof MailSendFailed && error.permanent;
    const now = new Date();
    const step = nextMailAttempt(attempts, mail.createdAt, now, this.settings, permanent);
    const kept = await this.repository.markFailed(mail.id, this.settings.owner, attempts, message, step.action === 'retry' ? step.at : null, now);
    if (!kept) return;
    mailAttemptsFailed.inc({ kind: mail.kind });
    if (step.action === 'retry') {
      this.logger.warn({ mail: mail.id, kind: mail.kind, attempts, error: message, next_attempt_at: step.at }, 'the SMTP server did not take a message; it is tried again');
    } else {
      mailGivenUp.inc({ kind: mail.kind });
      this.logger.error(
        { mail: mail.id, kind: mail.kind, attempts, error: message, permanent },
        permanent ? 'the SMTP server refused the recipient for good; the message is given up' : 'a message stayed unsent past MAIL_GIVE_UP_AFTER_MS; it is given up',
      );
    }
  }
}
