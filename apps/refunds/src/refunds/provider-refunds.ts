import { Logger } from '@nestjs/common';
import type { ProviderRefundReply } from '@payments/contracts';
import type { OutboxWriter } from '@payments/messaging';
import { formatMoney } from '@payments/money';
import { ApiError, CLAIM_LEASE_MS, keepingClaims } from '@payments/platform';
import type { DataSource } from 'typeorm';
import type { SessionsPayments } from '../sessions-lookup/sessions-payments';
import { refundEvent } from './refund-events';
import type { RefundsRepository, StoredRefund } from './refunds.repository';

/** When a refund pending at its provider is first asked about again. */
export const FIRST_CHECK_AFTER_MS = 5_000;

/**
 * Refunds of provider payments (live `lahza`): stored pending with their amount set aside, then asked of the provider
 * through sessions (which owns it), outside the refund's transaction, with the refund id as the command id (sessions
 * asks the provider once per refund id). Processed → completed; failed → failed with the provider's reason and the
 * amount given back to the payment; no answer yet (pending at the provider, sessions or the provider unreachable)
 * → pending, asked again by the background check until it resolves. Each outcome is written once, with its event.
 */
export class ProviderRefundSettlement {
  private readonly logger = new Logger('ProviderRefunds');

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: RefundsRepository,
    private readonly sessions: SessionsPayments,
    private readonly outbox: OutboxWriter,
    private readonly topic: string,
  ) {}

  /** Asks the provider for the pending refund; answers the refund as it stands after. */
  async request(refund: StoredRefund, correlationId: string, commandId?: string): Promise<StoredRefund> {
    let answer: ProviderRefundReply;
    try {
      answer = await this.sessions.refundAtProvider(commandOf(refund), correlationId);
    } catch (error) {
      this.noAnswer(refund, error, 'the provider refund request');
      return refund;
    }
    return this.apply(refund, answer, correlationId, commandId);
  }

  /**
   * The background check: pending refunds due, each asked about again (sent again if sessions never had it), claimed
   * under a short lease this instance renews while it asks them one by one (sessions may take seconds each). Each
   * check ends its claim: the outcome, or the refund's next turn.
   */
  async checkDue(limit: number): Promise<number> {
    const manager = this.dataSource.manager;
    const now = new Date();
    const due = await this.repository.claimDue(manager, now, limit, new Date(now.getTime() + CLAIM_LEASE_MS));
    const renewal = {
      extend: (ids: readonly string[], until: Date) => this.repository.extendClaims(manager, ids, until),
      onRenewalError: (error: unknown) => this.logger.warn({ err: error }, 'renewing the claims on pending refunds failed; renewed again shortly'),
    };
    await keepingClaims(due.map((r) => r.id), renewal, async (claims) => {
      for (const refund of due) {
        try {
          const after = await this.check(refund, `check_${refund.id}`);
          if (after.status === 'pending') await this.repository.postpone(manager, refund.id, new Date());
        } finally {
          claims.release(refund.id);
        }
      }
    });
    return due.length;
  }

  /**
   * The provider settled this refund (its signed notification reached sessions, which asked the provider): its
   * outcome is taken now rather than at the next background check. Answers the refund as it stands after.
   */
  async settled(refund: StoredRefund, correlationId: string, commandId?: string): Promise<StoredRefund> {
    return refund.status === 'pending' ? this.check(refund, correlationId, commandId) : refund;
  }

  /** Asks sessions what became of the pending refund and writes its outcome (sent again if sessions never had it). */
  private async check(refund: StoredRefund, correlationId: string, commandId?: string): Promise<StoredRefund> {
    try {
      const known = await this.sessions.providerRefundStatus({ merchant_id: refund.merchantId, environment: refund.environment, refund_id: refund.id }, correlationId);
      return await this.apply(refund, known ?? (await this.sessions.refundAtProvider(commandOf(refund), correlationId)), correlationId, commandId);
    } catch (error) {
      this.noAnswer(refund, error, 'the provider refund check');
      return refund;
    }
  }

  /** Writes the provider's final word once, with its event (caused by `commandId`, if a command asked); a pending answer changes nothing. */
  private async apply(refund: StoredRefund, answer: ProviderRefundReply, correlationId: string, commandId?: string): Promise<StoredRefund> {
    if (answer.status === 'pending') return refund;
    return this.dataSource.transaction(async (manager) => {
      const now = new Date();
      const outcome = answer.status === 'completed' ? { status: 'completed' as const } : { status: 'failed' as const, reason: answer.reason ?? 'refund failed at the provider' };
      const ended = await this.repository.resolve(manager, refund.id, outcome, now);
      // Ended meanwhile (the request's answer and a check racing): as it was written.
      if (!ended) return (await this.repository.findRefundById(manager, refund.id)) ?? refund;
      await this.outbox.append(manager, this.topic, [refundEvent(answer.status === 'completed' ? 'refund.completed' : 'refund.failed', ended.refund, ended.payment, correlationId, now, commandId ?? null)]);
      if (answer.status === 'failed') this.logger.warn({ refund: refund.id, reason: outcome.status === 'failed' ? outcome.reason : null }, 'refund failed at the provider; its amount is refundable again');
      return ended.refund;
    });
  }

  private noAnswer(refund: StoredRefund, error: unknown, what: string): void {
    // Unreachable or busy: asked again later. Anything else (sessions knows no provider payment of this id) cannot
    // happen for a payment a provider made; it is logged loudly and asked again all the same.
    const transient = error instanceof ApiError && error.code === 'service_unavailable';
    const log = { err: error, refund: refund.id, payment: refund.paymentId };
    if (transient) this.logger.warn(log, `${what} gave no answer; the refund stays pending and is asked about again`);
    else this.logger.error(log, `${what} was refused; the refund stays pending and is asked about again`);
  }
}

function commandOf(refund: StoredRefund) {
  return { merchant_id: refund.merchantId, environment: refund.environment, payment_id: refund.paymentId, refund_id: refund.id, amount: formatMoney(refund.amountCents) };
}
