// Payment intent: an event-sourced aggregate. Commands check the state and return the events to append (they
// never change the aggregate); `apply` gives the aggregate after them. Transitions (DESIGN §5):
//
//   (none)                           create                  -> requires_payment_method
//   requires_payment_method, failed  submit method / crypto  -> processing
//   processing                       succeed                 -> succeeded  (paid, paid_at, fee, net, payment_id)
//   any, crypto confirmed on a chain  receiveChainTransfer    -> see there (money on a chain is never refused)
//   processing                       fail                    -> failed     (the customer may retry until expiry)
//   requires_payment_method, failed  cancel                  -> cancelled
//   any non-final                    expire (after expires_at) -> expired
//
// succeeded, cancelled and expired are final. Once expires_at has passed every command sees the intent as
// expired, so nothing can act on an intent that a read would already show as expired.
import { environmentOfPaymentIntentId, isPaymentId } from '@payments/ids';
import { DEFAULT_FEE_SCHEDULE, feeFor, type FeeSchedule } from '@payments/money';
import { DomainError } from './domain-error';
import type {
  ChainTransferDetail,
  PaymentIntentCreated,
  PaymentIntentEvent,
  PaymentIntentProcessingStarted,
  PaymentIntentSucceeded,
  PaymentIntentCryptoTransferReceived,
} from './payment-intent.events';
import { fromStream, initialSessionState, SessionAggregate, sessionTerms, type CreateSessionInput, type SessionRules, type SessionState } from './session-aggregate';
import { DEFAULT_INTENT_EXPIRES_IN_SECONDS, INTENT_PAYMENT_METHODS, isoTime, type IntentPaymentMethod } from './session-types';

import { isFinalPaymentIntentStatus, type PaymentIntentStatus } from '@payments/contracts';

export { isFinalPaymentIntentStatus, PAYMENT_INTENT_FINAL_STATUSES, type PaymentIntentStatus } from '@payments/contracts';

/** A transfer counted: `key` is what it is counted once by, `txid` what the resource shows. */
export interface CountedCryptoTransfer {
  readonly key: string;
  readonly txid: string;
  readonly amountCents: number;
}

export interface PaymentIntentCryptoState {
  readonly address: string | null;
  readonly requestedCents: number;
  readonly receivedCents: number;
  readonly remainingCents: number;
  readonly overpaymentCents: number;
  /** The latest transfer counted. */
  readonly txid: string | null;
  /** Every transfer counted, so a transfer reported twice is counted once. */
  readonly transfers: readonly CountedCryptoTransfer[];
  /** Keys of counted transfers a reorg removed after the intent was paid (still counted: the payment stands). */
  readonly reversed: readonly string[];
}

export interface PaymentIntentState extends SessionState<PaymentIntentStatus, IntentPaymentMethod> {
  /** The method of the current or last attempt. */
  readonly paymentMethod: IntentPaymentMethod | null;
  readonly paymentId: string | null;
  /** The customer wallet a `togo` payment was taken from. */
  readonly walletId: string | null;
  /** What the payment was of, once paid: the amount, or for crypto what was received by then. */
  readonly paidAmountCents: number | null;
  readonly crypto: PaymentIntentCryptoState;
}

export type CreatePaymentIntentInput = CreateSessionInput<IntentPaymentMethod>;

export type SimulatePaymentIntentInput =
  | {
      readonly result: 'succeeded';
      readonly method?: IntentPaymentMethod;
      readonly paymentId: string;
      readonly feeSchedule?: FeeSchedule;
      readonly now: Date;
    }
  | { readonly result: 'failed'; readonly method?: IntentPaymentMethod; readonly reason?: string; readonly now: Date };

const TERMS = { label: 'payment intent', environmentOf: environmentOfPaymentIntentId, methods: INTENT_PAYMENT_METHODS, defaultExpiresInSeconds: DEFAULT_INTENT_EXPIRES_IN_SECONDS };
const RULES: SessionRules<PaymentIntentState, PaymentIntentEvent, PaymentIntentStatus> = {
  label: 'payment intent',
  article: 'a',
  isFinal: isFinalPaymentIntentStatus,
  evolve,
  wrap: (state) => PaymentIntent.fromState(state),
  expiredEvent: (now) => ({ type: 'PaymentIntentExpired', data: { expiredAt: isoTime(now) } }),
};

export class PaymentIntent extends SessionAggregate<PaymentIntentState, PaymentIntentEvent, PaymentIntentStatus, IntentPaymentMethod> {
  private constructor(state: PaymentIntentState) {
    super(state, RULES);
  }

  /** Validates the request and returns the creation event. */
  static create(input: CreatePaymentIntentInput): PaymentIntentEvent[] {
    const created: PaymentIntentCreated = { type: 'PaymentIntentCreated', data: sessionTerms(input, TERMS) };
    return [created];
  }

  /** Rebuilds the aggregate from its stream (the first event must be the creation). */
  static fromEvents(events: readonly PaymentIntentEvent[]): PaymentIntent {
    const creation = { type: 'PaymentIntentCreated', name: 'a payment intent' } as const;
    return fromStream(events, creation, (created: PaymentIntentCreated) => new PaymentIntent(initialState(created)));
  }

  /** Wraps a state already built (e.g. a read-model row or snapshot) to query it. */
  static fromState(state: PaymentIntentState): PaymentIntent {
    return new PaymentIntent(state);
  }

  /** Gives the crypto deposit address; the same address again is a no-op, a different one is refused. */
  assignCryptoAddress(address: string, now: Date): PaymentIntentEvent[] {
    if (address.length === 0) throw new DomainError('invalid_request', 'crypto address is empty');
    if (this.state.crypto.address === address) {
      this.requireMethodAvailable('crypto');
      return [];
    }
    if (this.state.crypto.address !== null) throw new DomainError('invalid_state', 'payment intent already has a crypto address');
    this.requireCryptoAddressAssignable(now);
    return [{ type: 'PaymentIntentCryptoAddressAssigned', data: { address, assignedAt: isoTime(now) } }];
  }

  /** Refuses what assignCryptoAddress would refuse, before an address is derived for it. */
  requireCryptoAddressAssignable(now: Date): void {
    this.requireMethodAvailable('crypto');
    this.requireStatus(now, ['requires_payment_method', 'failed'], 'assign a crypto address to');
  }

  /** The customer submits a method at checkout (for crypto, after the deposit address was given). */
  submitMethod(method: IntentPaymentMethod, now: Date): PaymentIntentEvent[] {
    this.requireMethodAvailable(method);
    this.requireStatus(now, ['requires_payment_method', 'failed'], 'submit a payment method for');
    if (method !== 'crypto') this.requireNoCryptoReceived('be paid another way');
    if (method === 'crypto' && this.state.crypto.address === null) {
      throw new DomainError('invalid_state', 'payment intent has no crypto address yet');
    }
    return [processingStarted(method, now)];
  }

  /**
   * A stablecoin transfer to the intent's address was seen. The first one moves the intent to processing; each
   * one updates received/remaining/overpayment. A txid already counted is a no-op.
   */
  recordCryptoTransfer(transfer: { readonly txid: string; readonly amountCents: number; readonly now: Date }): PaymentIntentEvent[] {
    const { txid, amountCents, now } = transfer;
    if (this.counted(txid)) return [];
    if (txid.length === 0) throw new DomainError('invalid_request', 'txid is empty');
    if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
      throw new DomainError('invalid_request', 'transfer amount must be a positive whole number of cents');
    }
    this.requireMethodAvailable('crypto');
    if (this.state.crypto.address === null) throw new DomainError('invalid_state', 'payment intent has no crypto address');
    const status = this.requireStatus(now, ['requires_payment_method', 'failed', 'processing'], 'record a crypto transfer for');
    if (status === 'processing' && this.state.paymentMethod !== 'crypto') {
      throw new DomainError('invalid_state', `payment intent is processing a ${this.state.paymentMethod} payment`);
    }
    const received = cryptoTransferReceived(txid, amountCents, now);
    return status === 'processing' ? [received] : [processingStarted('crypto', now), received];
  }

  /**
   * A transfer to the intent's address, confirmed on a chain (counted once by `key`). The customer's money is never
   * refused, whatever the intent became:
   * - open (waiting, failed, processing in crypto): processing, and succeeded (`paymentId`) once the amount is reached;
   * - processing another method's attempt (a card at Lahza, a wallet debit on its way): succeeded in crypto once the
   *   amount is reached, as the money is in hand and nothing else would ever book it; that attempt's later success is
   *   then a second payment of a paid session, kept for a refund (its decline changes nothing). Short of it, recorded
   *   with the status unchanged: if the attempt fails the intent takes only crypto, if it pays the crypto received
   *   is not booked (the caller reports it for an operator);
   * - expired: succeeded late once the amount is reached (as a late card payment, docs/decisions.md "Late payments");
   *   short of it, recorded and the intent stays expired;
   * - succeeded or cancelled: recorded (received and over-payment grow), the status unchanged; never a second
   *   payment. The caller reports it for an operator.
   */
  receiveChainTransfer(input: {
    readonly key: string;
    readonly amountCents: number;
    readonly chain: ChainTransferDetail;
    readonly paymentId: string;
    readonly now: Date;
  }): PaymentIntentEvent[] {
    const { key, amountCents, chain, now } = input;
    if (this.counted(key)) return [];
    if (!Number.isSafeInteger(amountCents) || amountCents < 0) throw new DomainError('invalid_request', 'transfer amount must be whole cents');
    if (this.state.crypto.address === null) throw new DomainError('invalid_state', 'payment intent has no crypto address');
    const received: PaymentIntentCryptoTransferReceived = {
      type: 'PaymentIntentCryptoTransferReceived',
      data: { txid: chain.txHash, amountCents, receivedAt: isoTime(now), key, chain },
    };
    const status = this.effectiveStatus(now);
    const inCrypto = this.state.status === 'processing' && this.state.paymentMethod === 'crypto';
    // Below a cent (dust), or after the intent closed: recorded only.
    if (amountCents === 0 || status === 'succeeded' || status === 'cancelled') return [received];
    const enough = this.state.crypto.receivedCents + amountCents >= this.state.amountCents;
    // Short of the amount after expiry, or beside another method's open attempt: recorded only.
    if (!enough && (status === 'expired' || (status === 'processing' && !inCrypto))) return [received];
    const events: PaymentIntentEvent[] = inCrypto ? [received] : [processingStarted('crypto', now), received];
    if (!enough) return events;
    const processing = this.apply(events);
    return [...events, processing.succeeded(input.paymentId, now, this.state.feeSchedule ?? DEFAULT_FEE_SCHEDULE)];
  }

  /** A counted chain transfer a reorg removed (see PaymentIntentCryptoTransferReversed); once per transfer. */
  reverseChainTransfer(input: { readonly key: string; readonly chain: ChainTransferDetail; readonly now: Date }): PaymentIntentEvent[] {
    const transfer = this.state.crypto.transfers.find((t) => t.key === input.key);
    if (!transfer || this.state.crypto.reversed.includes(input.key)) return [];
    return [
      {
        type: 'PaymentIntentCryptoTransferReversed',
        data: { key: input.key, txid: transfer.txid, amountCents: transfer.amountCents, reversedAt: isoTime(input.now), chain: input.chain },
      },
    ];
  }

  private counted(key: string): boolean {
    return this.state.crypto.transfers.some((t) => t.key === key);
  }

  /** The provider confirmed the payment: paid, with the fee of the method under the schedule given. */
  succeed(input: { readonly paymentId: string; readonly now: Date; readonly feeSchedule?: FeeSchedule }): PaymentIntentEvent[] {
    this.requireStatus(input.now, ['processing'], 'succeed');
    if (this.state.paymentMethod === 'crypto' && this.state.crypto.receivedCents < this.state.amountCents) {
      throw new DomainError(
        'invalid_state',
        `crypto payment is short: ${this.state.crypto.receivedCents} of ${this.state.amountCents} cents received`,
      );
    }
    return [this.succeeded(input.paymentId, input.now, input.feeSchedule ?? this.state.feeSchedule ?? DEFAULT_FEE_SCHEDULE)];
  }

  /**
   * A provider verified a payment of an attempt the customer started at checkout. Money taken is never dropped:
   * the payment is recorded whatever the intent became meanwhile (expired while the customer was at the
   * provider's page, or failed and retried), unless the intent is already paid or was cancelled (final by the
   * merchant's or customer's word: the caller keeps those payments on the attempt for a refund).
   */
  confirmProviderPayment(input: { readonly method: IntentPaymentMethod; readonly paymentId: string; readonly now: Date; readonly walletId?: string }): PaymentIntentEvent[] {
    if (this.state.status === 'succeeded') throw new DomainError('invalid_state', 'payment intent is already paid');
    if (this.state.status === 'cancelled') throw new DomainError('invalid_state', 'payment intent is cancelled');
    // Processing with this method, or expired while it was: straight to paid; otherwise the attempt is recorded first.
    const attempting = this.state.paymentMethod === input.method && (this.state.status === 'processing' || this.state.status === 'expired');
    const events: PaymentIntentEvent[] = attempting ? [] : [processingStarted(input.method, input.now)];
    const processing = this.apply(events);
    return [...events, processing.succeeded(input.paymentId, input.now, this.state.feeSchedule ?? DEFAULT_FEE_SCHEDULE, input.walletId)];
  }

  /** The provider declined: failed, and the customer may try again until expiry. */
  fail(input: { readonly reason?: string; readonly now: Date }): PaymentIntentEvent[] {
    this.requireStatus(input.now, ['processing'], 'fail');
    // Another method's attempt may fail even if crypto arrived meanwhile: the intent then takes only crypto.
    if (this.state.paymentMethod === 'crypto') this.requireNoCryptoReceived('fail');
    return [{ type: 'PaymentIntentPaymentFailed', data: { reason: input.reason || 'declined', failedAt: isoTime(input.now) } }];
  }

  /** The customer (at checkout) or the merchant cancels. */
  cancel(input: { readonly reason?: string | null; readonly now: Date }): PaymentIntentEvent[] {
    this.requireStatus(input.now, ['requires_payment_method', 'failed'], 'cancel');
    this.requireNoCryptoReceived('be cancelled');
    return [{ type: 'PaymentIntentCancelled', data: { reason: input.reason ?? null, cancelledAt: isoTime(input.now) } }];
  }

  /**
   * Test mode: drives the intent through processing to the result, emitting every event on the way (a crypto
   * success also records a simulated transfer of what is missing). The method defaults to the first available.
   */
  simulate(input: SimulatePaymentIntentInput): PaymentIntentEvent[] {
    if (this.state.environment !== 'test') throw new DomainError('live_mode_not_allowed', 'only test payment intents can be simulated');
    const { now } = input;
    const status = this.requireStatus(now, ['requires_payment_method', 'failed', 'processing'], 'simulate');
    const events: PaymentIntentEvent[] = [];
    let intent: PaymentIntent = this;
    if (status === 'processing') {
      if (input.method !== undefined && input.method !== this.state.paymentMethod) {
        throw new DomainError('invalid_request', `payment intent is processing a ${this.state.paymentMethod} payment`);
      }
    } else {
      const method = input.method ?? (this.state.crypto.receivedCents > 0 ? 'crypto' : this.state.methods[0]);
      if (method === undefined) throw new DomainError('payment_methods_unavailable', 'payment intent has no payment method');
      this.requireMethodAvailable(method);
      if (method !== 'crypto') this.requireNoCryptoReceived('be paid another way');
      events.push(processingStarted(method, now));
      intent = this.apply(events);
    }
    if (input.result === 'failed') {
      return [...events, ...intent.fail({ reason: input.reason ?? 'simulated_failure', now })];
    }
    const missing = intent.state.amountCents - intent.state.crypto.receivedCents;
    if (intent.state.paymentMethod === 'crypto' && missing > 0) {
      events.push(cryptoTransferReceived(`simulated_${input.paymentId}`, missing, now));
      intent = this.apply(events);
    }
    return [...events, ...intent.succeed(input)];
  }

  /**
   * Crypto already received is the customer's money in hand: the intent can then only be completed in crypto (or
   * expire, which keeps what was received). Failing, cancelling or paying it another way left the transfer
   * unaccounted for: neither booked nor reported.
   */
  private requireNoCryptoReceived(action: string): void {
    const { receivedCents } = this.state.crypto;
    if (receivedCents > 0) {
      throw new DomainError(
        'invalid_state',
        `payment intent has received ${receivedCents} of ${this.state.amountCents} cents in crypto: it cannot ${action}; the rest is awaited in crypto`,
      );
    }
  }

  private succeeded(paymentId: string, now: Date, schedule: FeeSchedule, walletId?: string): PaymentIntentSucceeded {
    if (!isPaymentId(paymentId)) throw new DomainError('invalid_request', `malformed payment id ${paymentId}`);
    const method = this.state.paymentMethod;
    if (method === null) throw new DomainError('invalid_state', 'payment intent has no payment method');
    // Crypto pays what was received (an over-payment included): the fee and the booking are of that.
    const paidCents = method === 'crypto' ? Math.max(this.state.amountCents, this.state.crypto.receivedCents) : this.state.amountCents;
    const fee = feeFor(paidCents, method, schedule);
    return {
      type: 'PaymentIntentSucceeded',
      data: {
        paymentId,
        ...(paidCents !== this.state.amountCents ? { amountCents: paidCents } : {}),
        feeRateBps: fee.rateBps,
        feeCents: fee.feeCents,
        netCents: fee.netCents,
        paidAt: isoTime(now),
        ...(walletId ? { walletId } : {}),
      },
    };
  }

}

function processingStarted(method: IntentPaymentMethod, now: Date): PaymentIntentProcessingStarted {
  return { type: 'PaymentIntentProcessingStarted', data: { method, startedAt: isoTime(now) } };
}

function cryptoTransferReceived(txid: string, amountCents: number, now: Date): PaymentIntentCryptoTransferReceived {
  return { type: 'PaymentIntentCryptoTransferReceived', data: { txid, amountCents, receivedAt: isoTime(now) } };
}

function initialState({ data }: PaymentIntentCreated): PaymentIntentState {
  return {
    ...initialSessionState(data, 'requires_payment_method' as PaymentIntentStatus),
    paymentMethod: null,
    paymentId: null,
    walletId: null,
    paidAmountCents: null,
    crypto: cryptoState({ address: null, requestedCents: data.amountCents, receivedCents: 0, txid: null, transfers: [], reversed: [] }),
  };
}

function cryptoState(c: Omit<PaymentIntentCryptoState, 'remainingCents' | 'overpaymentCents'>): PaymentIntentCryptoState {
  return {
    ...c,
    remainingCents: Math.max(0, c.requestedCents - c.receivedCents),
    overpaymentCents: Math.max(0, c.receivedCents - c.requestedCents),
  };
}

/** One event applied to the state. Events are facts already checked by a command, so this only records them. */
function evolve(state: PaymentIntentState, event: PaymentIntentEvent): PaymentIntentState {
  const version = state.version + 1;
  switch (event.type) {
    case 'PaymentIntentCreated':
      throw new Error(`payment intent ${state.id} was created twice`);
    case 'PaymentIntentCryptoAddressAssigned':
      return { ...state, version, crypto: cryptoState({ ...state.crypto, address: event.data.address }) };
    case 'PaymentIntentProcessingStarted':
      return { ...state, version, status: 'processing', paymentMethod: event.data.method };
    case 'PaymentIntentCryptoTransferReceived': {
      const c = state.crypto;
      const { txid, amountCents } = event.data;
      const transfers = [...c.transfers, { key: event.data.key ?? txid, txid, amountCents }];
      return { ...state, version, crypto: cryptoState({ ...c, receivedCents: c.receivedCents + amountCents, txid, transfers }) };
    }
    case 'PaymentIntentCryptoTransferReversed': {
      const c = state.crypto;
      // Paid: the payment stands (booked, perhaps fulfilled); an operator settles it. Otherwise it stops counting,
      // and the same transfer mined again counts again.
      if (state.status === 'succeeded') return { ...state, version, crypto: cryptoState({ ...c, reversed: [...c.reversed, event.data.key] }) };
      const transfers = c.transfers.filter((t) => t.key !== event.data.key);
      const receivedCents = c.receivedCents - event.data.amountCents;
      return { ...state, version, crypto: cryptoState({ ...c, receivedCents, transfers, txid: transfers.at(-1)?.txid ?? null }) };
    }
    case 'PaymentIntentSucceeded':
      return {
        ...state,
        version,
        status: 'succeeded',
        paidAt: event.data.paidAt,
        paymentId: event.data.paymentId,
        paidAmountCents: event.data.amountCents ?? state.amountCents,
        walletId: event.data.walletId ?? null,
        feeRateBps: event.data.feeRateBps,
        feeCents: event.data.feeCents,
        netCents: event.data.netCents,
      };
    case 'PaymentIntentPaymentFailed':
      return { ...state, version, status: 'failed', failureReason: event.data.reason };
    case 'PaymentIntentCancelled':
      return { ...state, version, status: 'cancelled' };
    case 'PaymentIntentExpired':
      return { ...state, version, status: 'expired' };
  }
}
