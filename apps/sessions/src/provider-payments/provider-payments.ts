import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { newPaymentId, randomBase62 } from '@payments/ids';
import { ApiError, CLAIM_LEASE_MS, keepingClaims } from '@payments/platform';
import type { ProviderNotificationReply, ProviderPaymentOutcome } from '@payments/contracts';
import type { SqlStatement } from '@payments/database';
import type { FeeSchedule } from '@payments/money';
import type { DataSource } from 'typeorm';
import type { StreamScope } from '../event-store/event-store';
import { outcomeOf, ProviderUnavailable, type PaymentProvider } from '../providers/payment-provider';
import type { PaymentProviders, ProviderMethod } from '../providers/payment-providers';
import type { Clock } from '../shared/clock';
import { providerAttemptOutcomes, providerVerifications } from '../shared/sessions-metrics';
import { WALLET_PROVIDER, type ProviderAttempt, type ProviderAttemptsRepository } from './provider-attempts.repository';
import type { ProviderRefunds } from './provider-refunds';

/** What a session is, as far as paying it at a provider goes. */
export interface PayableSession {
  readonly scope: StreamScope;
  readonly kind: 'payment_intent' | 'invoice';
  /** Open to a new attempt now (not paid, processing, cancelled or expired). */
  readonly payable: boolean;
  /** Not final: an open attempt may still be continued (the customer goes back to the provider's page). */
  readonly open: boolean;
  readonly methods: readonly string[];
  readonly amountCents: number;
  readonly customerEmail: string | null;
  /** Where the shop's customer goes after paying (a creation term). */
  readonly successUrl: string | null;
  /** The merchant's fee schedule the session was created with (null: DESIGN's). */
  readonly feeSchedule: FeeSchedule | null;
  /** The session as read here, for the attempt's next step to decide on (see AttemptStep). */
  readonly snapshot: SessionSnapshot;
}

/** A session as an attempt's step read or left it (opaque): the next step decides on it without reading its stream. */
export type SessionSnapshot = { readonly __sessionSnapshot: unique symbol };

/** Why a payment a provider or the ledger made is not the session's: kept on its attempt for a refund. */
export type NotBooked = 'session_already_paid' | 'session_cancelled' | null;

/**
 * How a step of an attempt meets the session: `from` the snapshot the previous step left (a stale one only costs a
 * retry from the stream), `with` the attempt's own rows written in the same statement as the session's change.
 */
export interface AttemptStep<W = () => readonly SqlStatement[]> {
  readonly from?: SessionSnapshot;
  readonly with?: W;
}

/** The session kinds' part: read one, and record an attempt's start, success and decline in its stream. */
export interface ProviderSessions {
  find(id: string): Promise<PayableSession | null>;
  /** The session with its open attempt (of any provider), read in one statement. */
  findWithOpen(id: string): Promise<{ session: PayableSession; open: ProviderAttempt | null } | null>;
  /** The customer went to the provider (an intent becomes processing; an invoice stays pending). */
  begin(session: PayableSession, attempt: ProviderAttempt, step?: Pick<AttemptStep, 'with'>): Promise<SessionSnapshot>;
  /**
   * The provider verified the payment: recorded once per attempt, even after expiry; `late` when it came after. A
   * session paid already (another payment) or cancelled takes none: `notBooked` says which, and the step's `with`
   * is told.
   */
  succeed(
    attempt: ProviderAttempt,
    paymentId: string,
    step?: AttemptStep<(notBooked: NotBooked) => readonly SqlStatement[]>,
  ): Promise<{ paymentId: string | null; late: boolean; notBooked: NotBooked }>;
  /** The provider declined: the session may be paid again (nothing is written if it moved on meanwhile). */
  decline(attempt: ProviderAttempt, reason: string, step?: AttemptStep): Promise<void>;
}

/** First verify of an attempt nobody came back from: the customer is usually still on the provider's page. */
const FIRST_CHECK_AFTER_MS = 15_000;


/**
 * An attempt the provider has not settled (unfinished, or a card declined on a page that can still be paid) is
 * watched while its session may be paid and for a day after it began (a customer still on the provider's page after
 * the session ended is recorded late), then closed: no verify every few minutes for ever.
 */
export const WATCH_ATTEMPT_FOR_MS = 24 * 60 * 60_000;

/** A verified outcome, and whether the attempt stays open (the customer may still pay on the provider's page). */
export type Settled = Omit<ProviderPaymentOutcome, 'id'> & { open: boolean };

/** Settles the attempts that are not a session's provider payment (wallet payments, top-ups), through the same check. */
export interface AttemptSettler {
  handles(attempt: ProviderAttempt): boolean;
  settle(attempt: ProviderAttempt): Promise<Settled>;
}

/**
 * Paying a session through a provider (DESIGN §7): start an attempt and send the customer to the provider's page,
 * then learn the outcome only from a server-side verify, whatever told us to look (the customer's return, a signed
 * notification, or the background check). One open attempt per session, so two tabs or a double click reach
 * the same provider page and make one payment; each attempt's outcome is written once (its reference is the
 * command id), so a replayed callback changes nothing.
 */
export class ProviderPayments {
  private readonly logger = new Logger('ProviderPayments');
  /** Provider calls started by notifications, after their answer: awaited by `idle()` (shutdown, tests). */
  private readonly background = new Set<Promise<unknown>>();
  private readonly settlers: AttemptSettler[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly providers: PaymentProviders,
    private readonly attempts: ProviderAttemptsRepository,
    private readonly refunds: ProviderRefunds,
    private readonly sessions: ProviderSessions,
    private readonly publicBaseUrl: string,
    private readonly clock: Clock,
    /** How long a refund notification's answer waits for the provider's word, so it can name what settled. */
    private readonly notificationWaitMs: number,
  ) {}

  /** Wallet payments and top-ups: their attempts are settled by their own rules, leased and checked like the rest. */
  use(settler: AttemptSettler): void {
    this.settlers.push(settler);
  }

  /** Resolves once every provider call a notification started has ended. */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  /** The provider's page for the session's open attempt, opening one when there is none (or the last one failed). */
  async start(id: string, method: ProviderMethod): Promise<{ redirect_url: string }> {
    const session = await this.sessions.find(id);
    if (!session) throw new ApiError('not_found', 'No such checkout session.', 'id');
    const provider = this.providers.of(method, session.scope.environment);
    if (!provider || !session.methods.includes(method)) {
      throw new ApiError('payment_methods_unavailable', `Payment method ${method} is not available for this session.`, 'method');
    }
    const open = await this.attempts.findOpen(this.dataSource.manager, id);
    if (open) {
      // Whatever became of it decides: still at the provider (also after a declined card, which may be retried on
      // the same page) → the same page, never a second transaction that could charge again; paid → nothing more to
      // pay; over without a payment → a new attempt.
      const settled = await this.settle(open);
      if (settled.outcome === 'succeeded') throw new ApiError('invalid_state', 'This session is already paid.');
      if (!settled.open) return this.start(id, method);
      // A wallet payment the ledger has not answered yet: it ends paid or declined, never beside a card payment.
      if (open.redirectUrl === null) throw new ApiError('invalid_state', 'A wallet payment of this session is being completed; try again in a moment.');
      if (!session.open) throw new ApiError('invalid_state', 'This session cannot be paid any more.');
      return { redirect_url: open.redirectUrl };
    }
    if (!session.payable) throw new ApiError('invalid_state', 'This session cannot be paid any more.');
    const reference = `att${randomBase62()}`;
    let redirectUrl: string;
    try {
      ({ redirectUrl } = await provider.startAttempt({
        reference,
        amountCents: session.amountCents,
        currency: 'USD',
        email: session.customerEmail ?? `customer@${new URL(this.publicBaseUrl).hostname}`,
        callbackUrl: `${this.publicBaseUrl.replace(/\/$/, '')}/checkout/${encodeURIComponent(id)}/return`,
      }));
    } catch (error) {
      // Nothing was written: the customer may simply try again.
      this.logger.warn({ err: error, id, provider: method }, 'provider did not open the attempt');
      throw new ApiError('service_unavailable', 'The payment provider could not be reached. Please try again.');
    }
    const now = this.clock.now();
    const attempt: ProviderAttempt = {
      reference,
      provider: method,
      sessionKind: session.kind,
      sessionId: id,
      merchantId: session.scope.merchantId,
      environment: session.scope.environment,
      method,
      amountCents: session.amountCents,
      redirectUrl,
      status: 'open',
      failureReason: null,
      paymentId: null,
      checks: 0,
      createdAt: now,
      walletId: null,
      payer: null,
      returnTo: null,
      feeCents: null,
      feeRateBps: null,
    };
    if (!(await this.attempts.insertOpen(this.dataSource.manager, attempt, new Date(now.getTime() + FIRST_CHECK_AFTER_MS)))) {
      // Another tab opened one first: everyone goes to that one's page.
      return this.start(id, method);
    }
    try {
      await this.sessions.begin(session, attempt);
    } catch (error) {
      await this.attempts.resolve(this.dataSource.manager, reference, { status: 'failed', failureReason: 'session_not_payable' }, now);
      throw error;
    }
    return { redirect_url: redirectUrl };
  }

  /** The customer is back from the provider's page: verify the attempt the return address names. */
  async confirm(id: string, reference: string): Promise<ProviderPaymentOutcome> {
    const attempt = await this.attempts.find(this.dataSource.manager, reference);
    if (!attempt || attempt.sessionId !== id || attempt.sessionKind === 'wallet_top_up') throw new ApiError('not_found', 'No such payment attempt for this session.', 'reference');
    const { outcome, late } = await this.settle(attempt);
    return { id, outcome, late };
  }

  /**
   * A notification is a hint to verify, never a fact: only its signature and then the provider's verify count. It is
   * answered before the provider is asked (a slow provider would otherwise turn each notification into a timeout and
   * a resend), and one verify at a time runs per attempt however many notifications arrive; the background check
   * settles whatever a verify started here could not.
   */
  async notification(method: ProviderMethod, rawBody: Buffer, signature: string | null): Promise<ProviderNotificationReply> {
    const signers = this.providers.signersOf(method, rawBody, signature ?? undefined);
    if (signers.length === 0) return { accepted: false };
    let body: NotificationBody;
    try {
      body = JSON.parse(rawBody.toString('utf8')) as NotificationBody;
    } catch (error) {
      // Signed, but not JSON: nothing in it to verify. Said, and acknowledged (the background check still settles
      // every open attempt, so no payment waits on a notification).
      this.logger.warn({ err: error, provider: method }, 'signed provider notification is not JSON; ignored');
      return { accepted: true };
    }
    // A refund's notification: the refunds it may be about are asked of the provider again. The answer waits a
    // little for them, to name those settled (the refunds service is told at once); the rest it learns at its check.
    const refund = refundNotificationOf(body);
    if (refund) {
      const checked = this.inBackground(this.refunds.notification(method, signers, refund));
      const settled = await Promise.race([checked, sleep(this.notificationWaitMs, [], { ref: false })]);
      if (settled.length === 0) return { accepted: true };
      return { accepted: true, refunds: settled.map((r) => ({ refund_id: r.refundId, merchant_id: r.merchantId, environment: r.environment })) };
    }
    const reference = referenceOf(body);
    const attempt = reference ? await this.attempts.find(this.dataSource.manager, reference) : null;
    // A signed notification of a transaction that is not ours (or of the other environment) is acknowledged and ignored.
    if (!attempt || !signers.includes(attempt.environment)) return { accepted: true };
    if (attempt.status === 'open') {
      const token = randomUUID();
      const claimed = await this.attempts.claimOne(this.dataSource.manager, attempt.reference, this.clock.now(), { token, ms: CLAIM_LEASE_MS });
      if (claimed) {
        this.inBackground(this.underLease(token, [claimed], (a) => this.settle(a))).catch((error: unknown) => {
          this.logger.error({ err: error, reference: claimed.reference }, 'provider attempt verify after a notification failed; checked again later');
        });
      }
    }
    // A top-up is no session: nothing cached to drop.
    if (attempt.merchantId === null) return { accepted: true };
    return { accepted: true, session: { id: attempt.sessionId, merchant_id: attempt.merchantId, environment: attempt.environment } };
  }

  /** The background check: open attempts due for a verify, verified side by side. */
  async checkDue(limit: number): Promise<number> {
    const token = randomUUID();
    const due = await this.attempts.claimDue(this.dataSource.manager, this.clock.now(), limit, { token, ms: CLAIM_LEASE_MS });
    await this.underLease(token, due, (attempt) => this.settle(attempt));
    return due.length;
  }

  /**
   * Settles each leased attempt, renewing the leases while any runs and releasing each when it is done (a failure is
   * logged: the attempt is checked again later).
   */
  private async underLease(token: string, leased: readonly ProviderAttempt[], settle: (attempt: ProviderAttempt) => Promise<unknown>): Promise<void> {
    if (leased.length === 0) return;
    const manager = this.dataSource.manager;
    const renewal = {
      extend: (references: readonly string[], until: Date) => this.attempts.renewLeases(manager, token, references, until),
      onRenewalError: (error: unknown) => this.logger.warn({ err: error }, 'provider attempt leases not renewed; another instance may verify them too'),
      now: () => this.clock.now(),
    };
    await keepingClaims(
      leased.map((a) => a.reference),
      renewal,
      (claims) =>
        Promise.all(
          leased.map(async (attempt) => {
            try {
              await settle(attempt);
            } catch (error) {
              this.logger.error({ err: error, reference: attempt.reference }, 'provider attempt check failed; it is checked again at its next turn');
              await this.attempts.postpone(manager, attempt.reference, this.clock.now()).catch((postponing: unknown) => {
                this.logger.warn({ err: postponing, reference: attempt.reference }, 'provider attempt not postponed; it is due again once its lease ends');
              });
            } finally {
              claims.release(attempt.reference);
              await this.attempts.releaseLease(manager, token, attempt.reference).catch((error: unknown) => {
                this.logger.warn({ err: error, reference: attempt.reference }, 'provider attempt lease not released; it ends by itself');
              });
            }
          }),
        ),
    );
  }

  /** Runs `work` after the answer; `idle()` waits for it. */
  private inBackground<T>(work: Promise<T>): Promise<T> {
    const tracked = work.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
    return tracked;
  }

  /**
   * The attempt's outcome, as the provider verifies it now, written once: paid, over without a payment, or still
   * open (verified again later, also when the provider could not be reached). A declined card is told to the
   * session (the customer may try again) but leaves the attempt open: the customer may still pay on the same page,
   * and that payment is recorded whenever it is verified.
   */
  async settle(attempt: ProviderAttempt): Promise<Settled> {
    const settler = this.settlers.find((s) => s.handles(attempt));
    if (settler) return settler.settle(attempt);
    if (attempt.provider === WALLET_PROVIDER) throw new Error(`no settler of wallet attempt ${attempt.reference}`);
    // A payment a cancelled session did not take came after it closed (late: the customer sees our page).
    if (attempt.status === 'succeeded') return { outcome: 'succeeded', late: attempt.failureReason === 'session_cancelled', open: false };
    if (attempt.status === 'failed') return { outcome: 'failed', late: false, open: false };
    const provider = this.providers.of(attempt.method, attempt.environment);
    const verified = provider ? await this.verify(provider, attempt) : null;
    const now = this.clock.now();
    if (verified === null || verified.outcome === 'pending' || verified.outcome === 'declined') {
      if (verified?.outcome === 'declined') await this.sessions.decline(attempt, verified.reason);
      const reason = verified?.outcome === 'declined' ? verified.reason : 'no_outcome';
      if (now.getTime() - attempt.createdAt.getTime() >= WATCH_ATTEMPT_FOR_MS && !(await this.sessions.find(attempt.sessionId))?.open) {
        await this.attempts.resolve(this.dataSource.manager, attempt.reference, { status: 'failed', failureReason: reason }, now);
        providerAttemptOutcomes.inc({ provider: attempt.provider, outcome: 'failed' });
        this.logger.warn({ reference: attempt.reference, session: attempt.sessionId, reason }, 'provider attempt unsettled a day after it began, its session over: closed');
        return { outcome: 'failed', late: false, open: false };
      }
      await this.attempts.postpone(this.dataSource.manager, attempt.reference, now);
      return { outcome: verified?.outcome === 'declined' ? 'failed' : 'pending', late: false, open: true };
    }
    if (verified.outcome === 'failed') {
      if (verified.reason.startsWith('amount_mismatch')) {
        this.logger.error({ reference: attempt.reference, session: attempt.sessionId, reason: verified.reason }, 'provider verified another amount than the session: attempt failed');
      }
      await this.sessions.decline(attempt, verified.reason);
      await this.attempts.resolve(this.dataSource.manager, attempt.reference, { status: 'failed', failureReason: verified.reason }, now);
      providerAttemptOutcomes.inc({ provider: attempt.provider, outcome: verified.reason.startsWith('amount_mismatch') ? 'amount_mismatch' : 'failed' });
      return { outcome: 'failed', late: false, open: false };
    }
    const paid = await this.sessions.succeed(attempt, newPaymentId());
    if (paid.notBooked) {
      // One open attempt per session makes this rare (the session was paid another way, or cancelled, while a
      // declined attempt was still open); a payment the provider reports then is kept on the attempt and logged for
      // an operator to refund, never dropped.
      this.logger.error(
        { reference: attempt.reference, session: attempt.sessionId, reason: paid.notBooked },
        paid.notBooked === 'session_cancelled'
          ? 'provider verified a payment of a session cancelled meanwhile: refund it at the provider'
          : 'provider verified a second payment of a session already paid: refund it at the provider',
      );
    }
    await this.attempts.resolve(this.dataSource.manager, attempt.reference, { status: 'succeeded', paymentId: paid.paymentId, failureReason: paid.notBooked }, now);
    providerAttemptOutcomes.inc({ provider: attempt.provider, outcome: paid.late ? 'succeeded_late' : 'succeeded' });
    return { outcome: 'succeeded', late: paid.late, open: false };
  }

  /** What the provider says of the attempt now; null when there is no provider for it or it gave no readable answer. */
  async verifyAtProvider(attempt: ProviderAttempt) {
    const provider = this.providers.of(attempt.method, attempt.environment);
    return provider ? this.verify(provider, attempt) : null;
  }

  private async verify(provider: PaymentProvider, attempt: ProviderAttempt) {
    try {
      const outcome = outcomeOf(await provider.verify(attempt.reference), { amountCents: attempt.amountCents, currency: 'USD' });
      providerVerifications.inc({ provider: attempt.provider, result: 'answered' });
      return outcome;
    } catch (error) {
      providerVerifications.inc({ provider: attempt.provider, result: error instanceof ProviderUnavailable ? 'unavailable' : 'unreadable' });
      // Unreachable, or an answer we cannot read: the outcome is not known yet, so the attempt stays open.
      this.logger.warn({ err: error, reference: attempt.reference, unavailable: error instanceof ProviderUnavailable }, 'provider verify gave no outcome; checked again later');
      return null;
    }
  }
}

/** A provider notification's body, as far as it is read (nothing in it is trusted: it only names what to verify). */
interface NotificationBody {
  event?: unknown;
  data?: { id?: unknown; reference?: unknown; transaction_reference?: unknown; transaction?: unknown };
}

/**
 * What a refund notification (`event` refund.*) names: the provider's refund id (`data.id`) and the transaction
 * refunded (`data.transaction_reference`, or `data.transaction` as a reference or an object with one); null when
 * the notification is not about a refund.
 */
function refundNotificationOf(parsed: NotificationBody | null): { providerRefundId: string | null; reference: string | null } | null {
  if (typeof parsed?.event !== 'string' || !parsed.event.startsWith('refund.')) return null;
  const data = parsed.data ?? {};
  const id = typeof data.id === 'number' || typeof data.id === 'string' ? String(data.id) : '';
  const transaction = data.transaction as { reference?: unknown } | string | undefined;
  const reference = data.transaction_reference ?? (typeof transaction === 'object' && transaction !== null ? transaction.reference : transaction);
  return {
    providerRefundId: /^[A-Za-z0-9_.-]{1,64}$/.test(id) ? id : null,
    reference: typeof reference === 'string' && /^[A-Za-z0-9]{1,64}$/.test(reference) ? reference : null,
  };
}

/** The reference a provider's notification names (`data.reference`), if any. */
function referenceOf(parsed: NotificationBody | null): string | null {
  const reference = parsed?.data?.reference;
  return typeof reference === 'string' && /^[A-Za-z0-9]{1,64}$/.test(reference) ? reference : null;
}
