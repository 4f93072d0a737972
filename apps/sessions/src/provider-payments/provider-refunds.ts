import { Logger } from '@nestjs/common';
import type { ProviderRefundReply } from '@payments/contracts';
import type { Environment } from '@payments/ids';
import { ApiError } from '@payments/platform';
import type { DataSource } from 'typeorm';
import { ProviderRefused, ProviderUnavailable, type PaymentProvider, type ProviderRefund } from '../providers/payment-provider';
import type { PaymentProviders } from '../providers/payment-providers';
import type { Clock } from '../shared/clock';
import { providerRefundOutcomes } from '../shared/sessions-metrics';
import type { ProviderAttemptsRepository } from './provider-attempts.repository';
import type { ProviderRefundRow, ProviderRefundsRepository } from './provider-refunds.repository';

export interface RefundAtProvider {
  readonly scope: { readonly merchantId: string; readonly environment: Environment };
  readonly paymentId: string;
  readonly refundId: string;
  readonly amountCents: number;
}

/** Pending refunds one provider notification re-checks at most. */
const NOTIFIED_AT_MOST = 20;

/**
 * Refunds of provider payments at their provider, for the refunds service (which owns the refund; sessions owns the
 * provider and the attempt that made the payment). Each refund id asks the provider once: its row is written before
 * the call, and a command sent again finds it and only asks what became of it. A create request whose answer was
 * lost (a timeout, a crash mid-call) is looked for in the provider's list of the transaction's refunds; it is sent
 * again only when the list still does not show it `resendAfterMs` later, or when it certainly never arrived.
 */
export class ProviderRefunds {
  private readonly logger = new Logger('ProviderRefunds');
  private readonly checking = new Map<string, Promise<ProviderRefundRow>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly providers: PaymentProviders,
    private readonly attempts: ProviderAttemptsRepository,
    private readonly refunds: ProviderRefundsRepository,
    private readonly clock: Clock,
    private readonly resendAfterMs: number,
  ) {}

  /** Refunds `amountCents` of the payment at the provider that took it, once per refund id. */
  async refund(command: RefundAtProvider): Promise<ProviderRefundReply> {
    const manager = this.dataSource.manager;
    const known = await this.refunds.find(manager, command.refundId);
    if (known) return replyOf(await this.check(sameRefund(known, command)));
    const attempt = await this.attempts.findPaid(manager, command.scope, command.paymentId);
    if (!attempt) throw new ApiError('not_found', 'No payment made at a provider has this id.', 'payment_id');
    const provider = this.providers.of(attempt.method, attempt.environment);
    if (!provider) throw new ApiError('service_unavailable', `The ${attempt.method} provider is not configured for ${attempt.environment} payments.`);
    if (command.amountCents > attempt.amountCents) throw new ApiError('invalid_request', 'amount is more than the payment.', 'amount');
    const now = this.clock.now();
    const row = await this.refunds.insertRequested(manager, {
      refundId: command.refundId,
      reference: attempt.reference,
      provider: attempt.method,
      merchantId: command.scope.merchantId,
      environment: attempt.environment,
      paymentId: command.paymentId,
      amountCents: command.amountCents,
      requestedAt: now,
    });
    // Another delivery of this command wrote the row first: it asks the provider; this one says what is known.
    if (!row) return replyOf(await this.check(sameRefund((await this.refunds.find(manager, command.refundId))!, command)));
    return replyOf(await this.send(row, provider, now, { first: true }));
  }

  /** What became of the refund, asked of the provider again while it is pending. */
  async status(scope: RefundAtProvider['scope'], refundId: string): Promise<ProviderRefundReply> {
    const row = await this.refunds.find(this.dataSource.manager, refundId);
    if (!row || row.merchantId !== scope.merchantId || row.environment !== scope.environment) throw new ApiError('not_found', 'No such refund at a provider.', 'refund_id');
    return replyOf(await this.check(row));
  }

  /**
   * A signed refund notification (`refund.processed`, `refund.failed`, …) is a hint, like a payment's: the refunds it
   * may be about are asked of the provider again. Answers those the provider has settled now (completed or failed
   * there), for the refunds service to be told at once; the others it learns at its next check.
   */
  async notification(method: string, signers: readonly Environment[], body: { providerRefundId: string | null; reference: string | null }): Promise<ProviderRefundRow[]> {
    if (body.providerRefundId === null && body.reference === null) return [];
    const rows = await this.refunds.findPendingFor(this.dataSource.manager, method, body, NOTIFIED_AT_MOST);
    // Side by side, and one check at a time per refund on this instance however many notifications name it.
    const checked = await Promise.all(
      rows
        .filter((r) => signers.includes(r.environment))
        .map((row) =>
          this.checkOnce(row).catch((error: unknown) => {
            this.logger.error({ err: error, refund: row.refundId }, 'provider refund check after a notification failed; checked again later');
            return row;
          }),
        ),
    );
    return checked.filter((now) => now.status !== 'pending');
  }

  /** The check of this refund already running here, or a new one. */
  private checkOnce(row: ProviderRefundRow): Promise<ProviderRefundRow> {
    let running = this.checking.get(row.refundId);
    if (!running) {
      running = this.check(row).finally(() => this.checking.delete(row.refundId));
      this.checking.set(row.refundId, running);
    }
    return running;
  }

  /** The refund as the provider has it now; unchanged while the provider cannot say. */
  private async check(row: ProviderRefundRow): Promise<ProviderRefundRow> {
    if (row.status !== 'pending') return row;
    const provider = this.providers.of(row.provider, row.environment);
    if (!provider) return row;
    const manager = this.dataSource.manager;
    const now = this.clock.now();
    if (row.providerRefundId !== null) {
      try {
        return await this.learn(row, await provider.refundStatus(row.providerRefundId));
      } catch (error) {
        this.logger.warn({ err: error, refund: row.refundId }, 'provider refund status gave no answer; asked again later');
        return row;
      }
    }
    // No request reached the provider (none sent, or it certainly did not arrive): send it, once.
    if (row.requestedAt === null) {
      return (await this.refunds.claimRequest(manager, row.refundId, null, now)) ? this.send(row, provider, now, { first: false }) : ((await this.refunds.find(manager, row.refundId)) ?? row);
    }
    // A request may have reached the provider without its answer reaching us: the transaction's refunds tell.
    let listed: ProviderRefund[];
    try {
      listed = await provider.refundsOf(row.reference);
    } catch (error) {
      this.logger.warn({ err: error, refund: row.refundId }, 'provider refund list gave no answer; asked again later');
      return row;
    }
    const claimed = await this.refunds.claimedIds(manager, row.provider, row.reference);
    for (const found of listed) {
      if (found.id === null || claimed.has(found.id) || found.amountCents !== row.amountCents) continue;
      if (await this.refunds.claimProviderId(manager, row.refundId, row.provider, found.id)) return this.learn({ ...row, providerRefundId: found.id }, found);
    }
    const long = now.getTime() - row.requestedAt.getTime() >= this.resendAfterMs;
    if (row.resendRefused !== null) {
      // Sent again and refused, and still not listed long after: the refusal stands, the refund never happened.
      return long ? this.resolve(row, 'failed', row.resendRefused) : row;
    }
    if (long && (await this.refunds.claimRequest(manager, row.refundId, row.requestedAt, now))) {
      this.logger.warn({ refund: row.refundId, requests: row.requests }, 'a refund request the provider does not list: sending it again');
      return this.send(row, provider, now, { first: false });
    }
    return row;
  }

  /**
   * One create request at the provider (the caller holds the right to send it, claimed in the row); `first` when no
   * earlier request for this refund may have reached the provider.
   */
  private async send(row: ProviderRefundRow, provider: PaymentProvider, sentAt: Date, how: { first: boolean }): Promise<ProviderRefundRow> {
    const manager = this.dataSource.manager;
    let said: ProviderRefund;
    try {
      said = await provider.refund({ reference: row.reference, amountCents: row.amountCents });
    } catch (error) {
      if (error instanceof ProviderRefused && how.first) {
        // The provider said no to the only request: it made no refund, and says why.
        this.logger.warn({ err: error, refund: row.refundId }, 'provider refused the refund');
        return this.resolve(row, 'failed', error.providerMessage ?? error.message);
      }
      if (error instanceof ProviderRefused) {
        // Refused when sent again: an earlier request may have made it ("amount exceeds" because it did), so the
        // transaction's list decides; the refusal stands only once the list has long not shown it.
        this.logger.warn({ err: error, refund: row.refundId }, 'provider refused a refund request sent again; looked for in its list');
        await this.refunds.markResendRefused(manager, row.refundId, error.providerMessage ?? error.message);
        return (await this.refunds.find(manager, row.refundId)) ?? row;
      }
      if (error instanceof ProviderUnavailable && !error.mayHaveArrived) await this.refunds.markNotSent(manager, row.refundId, sentAt);
      this.logger.warn({ err: error, refund: row.refundId }, 'provider refund request gave no answer; checked again later');
      return (await this.refunds.find(manager, row.refundId)) ?? row;
    }
    if (said.id === null) {
      // Made, but unnamed: final already, or found in the transaction's list by a later check.
      return said.status === 'pending' ? row : this.learn(row, said);
    }
    if (!(await this.refunds.claimProviderId(manager, row.refundId, row.provider, said.id))) {
      // Another of ours, looking for its own lost request in the list, took this one (same amount): this one's
      // own request is then looked for the same way.
      return (await this.refunds.find(manager, row.refundId)) ?? row;
    }
    return this.learn({ ...row, providerRefundId: said.id }, said);
  }

  private async learn(row: ProviderRefundRow, said: ProviderRefund): Promise<ProviderRefundRow> {
    if (said.status === 'pending') return row;
    return this.resolve(row, said.status === 'processed' ? 'completed' : 'failed', said.reason);
  }

  private async resolve(row: ProviderRefundRow, status: 'completed' | 'failed', reason: string | null): Promise<ProviderRefundRow> {
    const manager = this.dataSource.manager;
    if (await this.refunds.resolve(manager, row.refundId, { status, reason: reason ?? 'refund failed at the provider' }, this.clock.now())) {
      providerRefundOutcomes.inc({ provider: row.provider, outcome: status });
      if (status === 'failed') this.logger.warn({ refund: row.refundId, reason }, 'provider refund failed');
    }
    return (await this.refunds.find(manager, row.refundId)) ?? row;
  }
}

/** A refund id is one refund: sent again, it must name the same payment and amount. */
function sameRefund(row: ProviderRefundRow, command: RefundAtProvider): ProviderRefundRow {
  if (row.merchantId !== command.scope.merchantId || row.environment !== command.scope.environment) throw new ApiError('not_found', 'No such refund at a provider.', 'refund_id');
  if (row.paymentId !== command.paymentId || row.amountCents !== command.amountCents) {
    throw new ApiError('invalid_request', `refund_id ${command.refundId} was asked for another payment or amount.`, 'refund_id');
  }
  return row;
}

function replyOf(row: ProviderRefundRow): ProviderRefundReply {
  return { refund_id: row.refundId, status: row.status, reason: row.status === 'failed' ? row.failureReason : null };
}
