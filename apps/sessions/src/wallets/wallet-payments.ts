import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { PayFromWalletCheckoutCommand, PayFromWalletCommand, PayFromWalletReply, WalletPaymentOutcome } from '@payments/contracts';
import { newPaymentId, randomBase62 } from '@payments/ids';
import { DEFAULT_FEE_SCHEDULE, feeFor, formatMoney } from '@payments/money';
import { ApiError, CLAIM_LEASE_MS, keepingClaims } from '@payments/platform';
import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '../event-store/event-store';
import { ONE_OPEN_ATTEMPT, WALLET_PROVIDER, merchantOf, type AttemptOutcome, type ProviderAttempt, type ProviderAttemptsRepository } from '../provider-payments/provider-attempts.repository';
import type { AttemptSettler, PayableSession, ProviderPayments, ProviderSessions, SessionSnapshot, Settled } from '../provider-payments/provider-payments';
import type { Clock } from '../shared/clock';
import { walletAttemptOutcomes } from '../shared/sessions-metrics';
import { LedgerRefused, type WalletLedger } from './wallet-ledger';

/** What became of an attempt (the click's answer less what the session adds). */
type DriveOutcome = Omit<WalletPaymentOutcome, 'success_url'>;

/** When an attempt the ledger has not answered is first asked again (then 5 s doubling, at most 5 min). */
const FIRST_REDRIVE_AFTER_MS = 5_000;

/** The environment a wallet id names (`wal_live_…` / `wal_test_…`). */
export function environmentOfWallet(walletId: string): 'live' | 'test' | null {
  const match = /^wal_(live|test)_/.exec(walletId);
  return match ? (match[1] as 'live' | 'test') : null;
}

/**
 * Paying a session from the customer's wallet (`togo`; `wallet` on invoices). Money moves only in the ledger: it
 * debits the wallet and credits the merchant in one posting keyed by the payment id, and its answer is final per
 * payment id. So the attempt, with the payment id chosen here, is written before the ledger is asked; the session
 * succeeds only on the ledger's `paid`, with that payment id. An attempt the ledger did not answer (unreachable, a
 * timeout, sessions dying before it recorded the answer) stays open and the background check asks again with the
 * same payment id until it answers: never a debit without a succeeded session, never a success without the debit.
 * One open attempt per session (of any method): a double click or a second tab makes one payment.
 */
export class WalletPayments implements AttemptSettler {
  private readonly logger = new Logger('WalletPayments');

  constructor(
    private readonly dataSource: DataSource,
    private readonly attempts: ProviderAttemptsRepository,
    private readonly sessions: ProviderSessions,
    private readonly providerPayments: ProviderPayments,
    private readonly ledger: WalletLedger,
    private readonly clock: Clock,
  ) {}

  /** The click: its outcome with where the shop sends its customer after paying (the page reads nothing else). */
  async pay(command: PayFromWalletCheckoutCommand): Promise<WalletPaymentOutcome> {
    // The session, its stream and its open attempt in one read.
    const found = await this.sessions.findWithOpen(command.id);
    if (!found) throw new ApiError('not_found', 'No such checkout session.', 'id');
    return { ...(await this.payFound(command, found)), success_url: found.session.successUrl };
  }

  private async payFound(command: PayFromWalletCheckoutCommand, { session, open }: { session: PayableSession; open: ProviderAttempt | null }): Promise<DriveOutcome> {
    const { id } = command;
    const method = session.kind === 'payment_intent' ? 'togo' : 'wallet';
    if (!session.methods.includes(method)) throw new ApiError('payment_methods_unavailable', `Payment method ${method} is not available for this session.`, 'method');
    // A wallet of the other environment does not exist for this session (test money never pays a live session).
    if (environmentOfWallet(command.wallet_id) !== session.scope.environment) throw new ApiError('not_found', 'No such wallet for this session.', 'wallet_id');

    if (open && open.provider === WALLET_PROVIDER) return this.continueOpen(open);
    if (open) {
      // A card payment was started: whatever became of it decides, as when the customer goes back to the card.
      const settled = await this.providerPayments.settle(open);
      if (settled.outcome === 'succeeded') throw new ApiError('invalid_state', 'This session is already paid.');
      if (settled.open) {
        throw new ApiError('invalid_state', `A ${open.method} payment of this session is still open at the provider: finish it there, or try the wallet again once it has ended.`);
      }
      return this.pay(command);
    }
    if (!session.payable) throw new ApiError('invalid_state', 'This session cannot be paid any more.');

    // The fee as the session will record it on success: the same schedule and the surface's name for the method.
    const fee = feeFor(session.amountCents, method, session.feeSchedule ?? DEFAULT_FEE_SCHEDULE);
    const now = this.clock.now();
    const token = randomUUID();
    const attempt: ProviderAttempt = {
      reference: `att${randomBase62()}`,
      provider: WALLET_PROVIDER,
      sessionKind: session.kind,
      sessionId: id,
      merchantId: session.scope.merchantId,
      environment: session.scope.environment,
      method,
      amountCents: session.amountCents,
      redirectUrl: null,
      status: 'open',
      failureReason: null,
      paymentId: newPaymentId(),
      checks: 0,
      createdAt: now,
      walletId: command.wallet_id,
      payer: command.payer,
      returnTo: null,
      feeCents: fee.feeCents,
      feeRateBps: fee.rateBps,
    };
    const lease = { token, until: new Date(now.getTime() + CLAIM_LEASE_MS) };
    let begun: SessionSnapshot;
    try {
      // The attempt, with its payment id, is written in the same statement as the session's `processing`: one
      // commit, and both are there before the ledger is asked (or neither, and nothing was asked).
      begun = await this.sessions.begin(session, attempt, {
        with: () => [this.attempts.insertOpenStatement(attempt, new Date(now.getTime() + FIRST_REDRIVE_AFTER_MS), lease)],
      });
    } catch (error) {
      // Another tab (or click) opened an attempt first (its insert, or its `processing`, won): that one is the payment.
      if (isUniqueViolation(error, ONE_OPEN_ATTEMPT) || (await this.attempts.findOpen(this.dataSource.manager, id))) return this.pay(command);
      // Nothing was written and nothing asked of the ledger: the refusal is the answer.
      throw error;
    }
    return this.holding(token, attempt.reference, () => this.drive(attempt, begun));
  }

  handles(attempt: ProviderAttempt): boolean {
    return attempt.provider === WALLET_PROVIDER && attempt.sessionKind !== 'wallet_top_up';
  }

  /** The background check (already holding the attempt's lease) or another method's start asks what became of it. */
  async settle(attempt: ProviderAttempt): Promise<Settled> {
    if (attempt.status === 'succeeded') return { outcome: 'succeeded', late: false, open: false };
    if (attempt.status === 'failed') return { outcome: 'failed', late: false, open: false };
    const outcome = await this.drive(attempt);
    if (outcome.outcome === 'succeeded') return { outcome: 'succeeded', late: false, open: false };
    if (outcome.outcome === 'declined') return { outcome: 'failed', late: false, open: false };
    return { outcome: 'pending', late: false, open: true };
  }

  /**
   * A second click or tab while an attempt is open: it drives that attempt (same payment id) when nobody else is,
   * and otherwise answers pending (the page shows the session as the first one leaves it).
   */
  private async continueOpen(open: ProviderAttempt): Promise<DriveOutcome> {
    const token = randomUUID();
    const claimed = await this.attempts.claimOne(this.dataSource.manager, open.reference, this.clock.now(), { token, ms: CLAIM_LEASE_MS });
    if (!claimed) return { id: open.sessionId, outcome: 'pending', reason: null, balance: null };
    return this.holding(token, claimed.reference, () => this.drive(claimed));
  }

  /** Runs `work` holding the attempt's lease (renewed while it runs, released after), so no one else drives it meanwhile. */
  private async holding<T extends DriveOutcome>(token: string, reference: string, work: () => Promise<T>): Promise<T> {
    const manager = this.dataSource.manager;
    return keepingClaims(
      [reference],
      {
        extend: (references, until) => this.attempts.renewLeases(manager, token, references, until),
        onRenewalError: (error) => this.logger.warn({ err: error, reference }, 'wallet attempt lease not renewed'),
        now: () => this.clock.now(),
      },
      async () => {
        let outcome: T | undefined;
        try {
          outcome = await work();
          return outcome;
        } finally {
          // Succeeded or declined: resolving the attempt ended its lease in the same statement.
          if (outcome?.outcome !== 'succeeded' && outcome?.outcome !== 'declined') {
            await this.attempts.releaseLease(manager, token, reference).catch((error: unknown) => {
              this.logger.warn({ err: error, reference }, 'wallet attempt lease not released; it ends by itself');
            });
          }
        }
      },
    );
  }

  /**
   * Asks the ledger (again) with the attempt's own payment id and records its final answer: paid → the session
   * succeeds with that payment; not enough in the wallet → the attempt is declined and the session may be paid again.
   * No answer → still open, asked again by the background check.
   */
  private async drive(attempt: ProviderAttempt, from?: SessionSnapshot): Promise<DriveOutcome> {
    const id = attempt.sessionId;
    const manager = this.dataSource.manager;
    let reply: PayFromWalletReply;
    try {
      reply = await this.ledger.pay(ledgerCommandOf(attempt));
    } catch (error) {
      if (error instanceof LedgerRefused) {
        // The ledger refused the command itself: nothing was posted, and asking again would be refused again.
        this.logger.error({ err: error, reference: attempt.reference, session: id }, 'ledger refused a wallet payment: attempt declined');
        await this.sessions.decline(attempt, 'wallet_unavailable', this.resolving(attempt, { status: 'failed', failureReason: `wallet_unavailable: ${error.code}` }, from));
        walletAttemptOutcomes.inc({ outcome: 'refused' });
        return { id, outcome: 'declined', reason: 'wallet_unavailable', balance: null };
      }
      this.logger.warn({ err: error, reference: attempt.reference, session: id }, 'ledger gave no answer to a wallet payment; asked again later');
      await this.attempts.postpone(manager, attempt.reference, this.clock.now());
      walletAttemptOutcomes.inc({ outcome: 'pending' });
      return { id, outcome: 'pending', reason: null, balance: null };
    }
    try {
      return await this.record(attempt, reply, from);
    } catch (error) {
      // The ledger answered but the answer is not written: the attempt stays open and the next check asks the ledger
      // again, which answers the same for this payment id.
      this.logger.error({ err: error, reference: attempt.reference, session: id }, 'wallet payment answer not recorded; asked again later');
      await this.attempts.postpone(manager, attempt.reference, this.clock.now()).catch(() => undefined);
      return { id, outcome: 'pending', reason: null, balance: null };
    }
  }

  /**
   * The attempt's resolution as a step of the session's change: written in the same statement as the session's
   * success or decline (one commit), or alone when the session has nothing to write.
   */
  private resolving(attempt: ProviderAttempt, outcome: AttemptOutcome, from: SessionSnapshot | undefined) {
    return { ...(from ? { from } : {}), with: () => [this.attempts.resolveStatement(attempt.reference, outcome, this.clock.now())] };
  }

  private async record(attempt: ProviderAttempt, reply: PayFromWalletReply, from: SessionSnapshot | undefined): Promise<DriveOutcome> {
    const id = attempt.sessionId;
    if (reply.outcome === 'insufficient_funds') {
      await this.sessions.decline(attempt, 'insufficient_funds', this.resolving(attempt, { status: 'failed', failureReason: 'insufficient_funds' }, from));
      walletAttemptOutcomes.inc({ outcome: 'declined' });
      return { id, outcome: 'declined', reason: 'insufficient_funds', balance: reply.balance };
    }
    const paymentId = attempt.paymentId!;
    const paid = await this.sessions.succeed(attempt, paymentId, {
      ...(from ? { from } : {}),
      with: (notBooked) => [
        this.attempts.resolveStatement(attempt.reference, { status: 'succeeded', paymentId, failureReason: notBooked }, this.clock.now()),
      ],
    });
    if (paid.notBooked) {
      // The session was paid another way while this attempt was open (a test-mode simulation): the wallet's money
      // is kept on the attempt and logged for an operator to refund, never dropped.
      this.logger.error({ reference: attempt.reference, session: id, payment: paymentId, wallet: attempt.walletId }, 'ledger took a wallet payment of a session already paid: refund it to the wallet');
    }
    walletAttemptOutcomes.inc({ outcome: paid.late ? 'succeeded_late' : 'succeeded' });
    return { id, outcome: 'succeeded', reason: null, balance: reply.balance };
  }
}

/** The ledger's command for an attempt: the same every time it is sent (its amounts were fixed when it began). */
export function ledgerCommandOf(attempt: ProviderAttempt): PayFromWalletCommand {
  if (attempt.paymentId === null || attempt.walletId === null || attempt.feeCents === null || attempt.feeRateBps === null) {
    throw new Error(`wallet attempt ${attempt.reference} lacks its payment id, wallet or fee`);
  }
  return {
    wallet_id: attempt.walletId,
    environment: attempt.environment,
    merchant_id: merchantOf(attempt),
    payment_id: attempt.paymentId,
    source: attempt.sessionId,
    method: attempt.method as 'togo' | 'wallet',
    amount: formatMoney(attempt.amountCents),
    fee: formatMoney(attempt.feeCents),
    net: formatMoney(attempt.amountCents - attempt.feeCents),
    fee_rate_bps: attempt.feeRateBps,
  };
}
