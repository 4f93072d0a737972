import { Logger } from '@nestjs/common';
import type { StartWalletTopUpCommand, StartWalletTopUpReply, WalletTopUpOutcome } from '@payments/contracts';
import { randomBase62 } from '@payments/ids';
import { formatMoney, MIN_AMOUNT_CENTS, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { DataSource } from 'typeorm';
import type { ProviderAttempt, ProviderAttemptsRepository } from '../provider-payments/provider-attempts.repository';
import { WATCH_ATTEMPT_FOR_MS, type AttemptSettler, type ProviderPayments, type Settled } from '../provider-payments/provider-payments';
import type { PaymentProviders } from '../providers/payment-providers';
import type { Clock } from '../shared/clock';
import { walletTopUpOutcomes } from '../shared/sessions-metrics';
import { environmentOfWallet } from './wallet-payments';
import { LedgerRefused, type WalletLedger } from './wallet-ledger';

/** First verify of a top-up nobody came back from: the customer is usually still on Lahza's page. */
const FIRST_CHECK_AFTER_MS = 15_000;

/**
 * A card top-up of a customer wallet at Lahza: an attempt like a session's (same table, same provider code, same
 * background check) but paying no session. Its outcome is only what Lahza verifies; a verified payment is credited
 * by the ledger once per top-up (its reference), and the top-up is succeeded only once the ledger has answered: a
 * ledger that cannot be reached leaves it open, and the check finishes it.
 */
export class WalletTopUps implements AttemptSettler {
  private readonly logger = new Logger('WalletTopUps');

  constructor(
    private readonly dataSource: DataSource,
    private readonly providers: PaymentProviders,
    private readonly attempts: ProviderAttemptsRepository,
    private readonly providerPayments: ProviderPayments,
    private readonly ledger: WalletLedger,
    private readonly publicBaseUrl: string,
    private readonly clock: Clock,
  ) {}

  async start(command: StartWalletTopUpCommand): Promise<StartWalletTopUpReply> {
    if (environmentOfWallet(command.wallet_id) !== command.environment) throw new ApiError('invalid_request', `wallet_id is not a ${command.environment} wallet.`, 'wallet_id');
    // Live wallets are topped up with Lahza's live key, test wallets with its test key.
    const provider = this.providers.of('lahza', command.environment);
    if (!provider) throw new ApiError('payment_methods_unavailable', `Card top-ups are not available in ${command.environment} mode.`);
    const amount = parseMoneyString(command.amount, { minCents: MIN_AMOUNT_CENTS });
    if (!amount.ok) throw new ApiError('invalid_request', `amount ${amount.message}`, 'amount');
    const reference = `att${randomBase62()}`;
    let redirectUrl: string;
    try {
      ({ redirectUrl } = await provider.startAttempt({
        reference,
        amountCents: amount.cents,
        currency: 'USD',
        email: command.email,
        // Lahza appends the reference (reference, trxref) to this address.
        callbackUrl: `${this.publicBaseUrl.replace(/\/$/, '')}/wallet/top-ups/return`,
      }));
    } catch (error) {
      this.logger.warn({ err: error, wallet: command.wallet_id }, 'provider did not open the top-up');
      throw new ApiError('service_unavailable', 'The payment provider could not be reached. Please try again.');
    }
    const now = this.clock.now();
    await this.attempts.insertOpen(
      this.dataSource.manager,
      {
        reference,
        provider: 'lahza',
        sessionKind: 'wallet_top_up',
        // A top-up pays no session: its own reference keeps it out of any session's one open attempt.
        sessionId: reference,
        merchantId: null,
        environment: command.environment,
        method: 'lahza',
        amountCents: amount.cents,
        redirectUrl,
        paymentId: null,
        walletId: command.wallet_id,
        payer: null,
        returnTo: command.return_to ?? null,
        feeCents: null,
        feeRateBps: null,
      },
      new Date(now.getTime() + FIRST_CHECK_AFTER_MS),
    );
    return { redirect_url: redirectUrl, reference };
  }

  /** Back from Lahza's page: verified with Lahza (the return itself proves nothing), credited once if paid. */
  async confirm(reference: string): Promise<WalletTopUpOutcome> {
    const attempt = await this.attempts.find(this.dataSource.manager, reference);
    if (!attempt || attempt.sessionKind !== 'wallet_top_up') throw new ApiError('not_found', 'No such top-up.', 'reference');
    const { outcome } = await this.settle(attempt);
    return {
      reference,
      wallet_id: attempt.walletId!,
      environment: attempt.environment,
      outcome,
      amount: formatMoney(attempt.amountCents),
      return_to: attempt.returnTo,
    };
  }

  handles(attempt: ProviderAttempt): boolean {
    return attempt.sessionKind === 'wallet_top_up';
  }

  async settle(attempt: ProviderAttempt): Promise<Settled> {
    if (attempt.status === 'succeeded') return { outcome: 'succeeded', late: false, open: false };
    if (attempt.status === 'failed') return { outcome: 'failed', late: false, open: false };
    const manager = this.dataSource.manager;
    const verified = await this.providerPayments.verifyAtProvider(attempt);
    const now = this.clock.now();
    if (verified === null || verified.outcome === 'pending' || verified.outcome === 'declined') {
      // Not paid (yet): a declined card may still be retried on the same page, so the top-up stays open a day.
      const reason = verified?.outcome === 'declined' ? verified.reason : 'no_outcome';
      if (now.getTime() - attempt.createdAt.getTime() >= WATCH_ATTEMPT_FOR_MS) {
        await this.attempts.resolve(manager, attempt.reference, { status: 'failed', failureReason: reason }, now);
        walletTopUpOutcomes.inc({ outcome: 'failed' });
        return { outcome: 'failed', late: false, open: false };
      }
      await this.attempts.postpone(manager, attempt.reference, now);
      return { outcome: verified?.outcome === 'declined' ? 'failed' : 'pending', late: false, open: true };
    }
    if (verified.outcome === 'failed') {
      await this.attempts.resolve(manager, attempt.reference, { status: 'failed', failureReason: verified.reason }, now);
      walletTopUpOutcomes.inc({ outcome: 'failed' });
      return { outcome: 'failed', late: false, open: false };
    }
    try {
      await this.ledger.topUp({ wallet_id: attempt.walletId!, environment: attempt.environment, amount: formatMoney(attempt.amountCents), top_up_id: attempt.reference });
    } catch (error) {
      // Paid at Lahza, not credited yet: never dropped, asked again (the ledger credits a top-up once).
      const refused = error instanceof LedgerRefused;
      this.logger[refused ? 'error' : 'warn']({ err: error, reference: attempt.reference, wallet: attempt.walletId }, 'verified top-up not credited by the ledger yet; asked again later');
      await this.attempts.postpone(manager, attempt.reference, this.clock.now());
      walletTopUpOutcomes.inc({ outcome: 'pending' });
      return { outcome: 'pending', late: false, open: true };
    }
    await this.attempts.resolve(manager, attempt.reference, { status: 'succeeded' }, this.clock.now());
    walletTopUpOutcomes.inc({ outcome: 'succeeded' });
    return { outcome: 'succeeded', late: false, open: false };
  }
}
