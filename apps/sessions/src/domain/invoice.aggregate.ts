// Invoice: an event-sourced aggregate like the payment intent. Transitions (spec + DESIGN §5):
//
//   (none)           create                  -> pending
//   pending, failed  pay                     -> paid     (fee, net, paid_at, payment filled)
//   pending, failed  payment declined        -> failed   (it may still be paid later)
//   pending, failed  expire (after expires_at) -> expired
//
// paid and expired are final. Once expires_at has passed every command sees a pending or failed invoice as
// expired. The invoice number is allocated by the caller (per merchant and environment).
import { environmentOfInvoiceId, isPaymentId } from '@payments/ids';
import { DEFAULT_FEE_SCHEDULE, feeFor, type FeeSchedule } from '@payments/money';
import { DomainError } from './domain-error';
import type { InvoiceCreated, InvoiceEvent, InvoicePayer } from './invoice.events';
import { maskPhone } from './phone-mask';
import { fromStream, initialSessionState, SessionAggregate, sessionTerms, type CreateSessionInput, type SessionRules, type SessionState } from './session-aggregate';
import { DEFAULT_INVOICE_EXPIRES_IN_SECONDS, INVOICE_PAYMENT_METHODS, isoTime, type InvoicePaymentMethod } from './session-types';

import { isFinalInvoiceStatus, type InvoiceStatus } from '@payments/contracts';

export { INVOICE_FINAL_STATUSES, isFinalInvoiceStatus, type InvoiceStatus } from '@payments/contracts';

export interface InvoicePayment {
  /** The payment id. */
  readonly reference: string;
  readonly method: InvoicePaymentMethod;
  readonly payer: InvoicePayer;
  readonly paidAt: string;
  /** The customer wallet a `wallet` payment was taken from. */
  readonly walletId: string | null;
}

export interface InvoiceState extends SessionState<InvoiceStatus, InvoicePaymentMethod> {
  readonly number: string;
  readonly payment: InvoicePayment | null;
}

export interface CreateInvoiceInput extends CreateSessionInput<InvoicePaymentMethod> {
  readonly number: string;
}

/** Payer details as the provider reports them; the phone is masked before it is recorded. */
export interface PayerDetails {
  readonly name?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly country?: string | null;
}

export interface PayInvoiceInput {
  readonly paymentId: string;
  readonly method: InvoicePaymentMethod;
  readonly payer?: PayerDetails;
  /** The payer's phone is already masked (a wallet's profile, masked by the gateway): kept as given. */
  readonly payerPhoneMasked?: boolean;
  /** The customer wallet a `wallet` payment was taken from. */
  readonly walletId?: string;
  readonly feeSchedule?: FeeSchedule;
  readonly now: Date;
}

/** The payer a simulated payment reports unless one is given. */
export const TEST_PAYER: PayerDetails = Object.freeze({
  name: 'Test Payer',
  email: 'payer@example.com',
  phone: '+1 555 010 0123',
  country: 'US',
});

export type SimulateInvoiceInput =
  | {
      readonly result: 'paid';
      readonly method?: InvoicePaymentMethod;
      readonly paymentId: string;
      readonly payer?: PayerDetails;
      readonly feeSchedule?: FeeSchedule;
      readonly now: Date;
    }
  | { readonly result: 'failed'; readonly method?: InvoicePaymentMethod; readonly reason?: string; readonly now: Date }
  | { readonly result: 'expired'; readonly now: Date };

// What makes an invoice a session of its own kind: its name, final statuses, fold and expiry event.
const RULES: SessionRules<InvoiceState, InvoiceEvent, InvoiceStatus> = { label: 'invoice', article: 'an', isFinal: isFinalInvoiceStatus, evolve, expiredEvent: expired, wrap: (state) => Invoice.fromState(state) };
const TERMS = { label: 'invoice', environmentOf: environmentOfInvoiceId, methods: INVOICE_PAYMENT_METHODS, defaultExpiresInSeconds: DEFAULT_INVOICE_EXPIRES_IN_SECONDS };

export class Invoice extends SessionAggregate<InvoiceState, InvoiceEvent, InvoiceStatus, InvoicePaymentMethod> {
  private constructor(state: InvoiceState) {
    super(state, RULES);
  }

  static create(input: CreateInvoiceInput): InvoiceEvent[] {
    if (!/^\d{1,20}$/.test(input.number)) throw new DomainError('invalid_request', 'invoice number must be digits');
    const created: InvoiceCreated = { type: 'InvoiceCreated', data: { ...sessionTerms(input, TERMS), number: input.number } };
    return [created];
  }

  static fromEvents(events: readonly InvoiceEvent[]): Invoice {
    return fromStream(events, { type: 'InvoiceCreated', name: 'an invoice' }, (created: InvoiceCreated) => new Invoice(initialState(created)));
  }

  /** Wraps a state already built (e.g. a read-model row or snapshot) to query it. */
  static fromState(state: InvoiceState): Invoice {
    return new Invoice(state);
  }

  /** The customer paid: fee for the method, net, paid_at and the payment record (phone masked). */
  pay(input: PayInvoiceInput): InvoiceEvent[] {
    this.requireStatus(input.now, ['pending', 'failed'], 'pay');
    return this.paid(input);
  }

  private paid(input: PayInvoiceInput): InvoiceEvent[] {
    this.requireMethodAvailable(input.method);
    if (!isPaymentId(input.paymentId)) throw new DomainError('invalid_request', `malformed payment id ${input.paymentId}`);
    const fee = feeFor(this.state.amountCents, input.method, input.feeSchedule ?? this.state.feeSchedule ?? DEFAULT_FEE_SCHEDULE);
    const payer = input.payer ?? {};
    return [
      {
        type: 'InvoicePaid',
        data: {
          paymentId: input.paymentId,
          method: input.method,
          feeRateBps: fee.rateBps,
          feeCents: fee.feeCents,
          netCents: fee.netCents,
          payer: {
            name: payer.name ?? null,
            email: payer.email ?? null,
            phone: input.payerPhoneMasked ? (payer.phone ?? null) : maskPhone(payer.phone),
            country: payer.country ? payer.country.toUpperCase() : null,
          },
          paidAt: isoTime(input.now),
          ...(input.walletId ? { walletId: input.walletId } : {}),
        },
      },
    ];
  }

  /**
   * A provider verified a payment of an attempt the customer started at checkout: recorded even when the invoice
   * expired meanwhile (money taken is never dropped); an invoice already paid is the caller's case to keep.
   */
  confirmProviderPayment(input: PayInvoiceInput): InvoiceEvent[] {
    if (this.state.status === 'paid') throw new DomainError('invalid_state', 'invoice is already paid');
    return this.paid(input);
  }

  /** A payment attempt was declined; the invoice stays payable until it expires. */
  fail(input: { readonly method?: InvoicePaymentMethod | null; readonly reason?: string; readonly now: Date }): InvoiceEvent[] {
    this.requireStatus(input.now, ['pending', 'failed'], 'fail');
    if (input.method) this.requireMethodAvailable(input.method);
    return [
      {
        type: 'InvoicePaymentFailed',
        data: { method: input.method ?? null, reason: input.reason || 'declined', failedAt: isoTime(input.now) },
      },
    ];
  }

  /**
   * Test mode: paid (method defaults to wallet, or the first available when wallet is not; payer defaults to
   * TEST_PAYER), failed, or expired at once whatever expires_at says.
   */
  simulate(input: SimulateInvoiceInput): InvoiceEvent[] {
    if (this.state.environment !== 'test') throw new DomainError('live_mode_not_allowed', 'only test invoices can be simulated');
    switch (input.result) {
      case 'paid':
        return this.pay({ ...input, method: input.method ?? this.defaultSimulationMethod(), payer: input.payer ?? TEST_PAYER });
      case 'failed':
        return this.fail({ method: input.method ?? null, reason: input.reason ?? 'simulated_failure', now: input.now });
      case 'expired':
        this.requireStatus(input.now, ['pending', 'failed'], 'expire');
        return [expired(input.now)];
    }
  }

  private defaultSimulationMethod(): InvoicePaymentMethod {
    const method = this.state.methods.includes('wallet') ? 'wallet' : this.state.methods[0];
    if (method === undefined) throw new DomainError('payment_methods_unavailable', 'invoice has no payment method');
    return method;
  }

}

function expired(now: Date): InvoiceEvent {
  return { type: 'InvoiceExpired', data: { expiredAt: isoTime(now) } };
}

function initialState({ data }: InvoiceCreated): InvoiceState {
  return { ...initialSessionState(data, 'pending' as InvoiceStatus), number: data.number, payment: null };
}

function evolve(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  const version = state.version + 1;
  switch (event.type) {
    case 'InvoiceCreated':
      throw new Error(`invoice ${state.id} was created twice`);
    case 'InvoicePaid':
      return {
        ...state,
        version,
        status: 'paid',
        paidAt: event.data.paidAt,
        feeRateBps: event.data.feeRateBps,
        feeCents: event.data.feeCents,
        netCents: event.data.netCents,
        payment: { reference: event.data.paymentId, method: event.data.method, payer: event.data.payer, paidAt: event.data.paidAt, walletId: event.data.walletId ?? null },
      };
    case 'InvoicePaymentFailed':
      return { ...state, version, status: 'failed', failureReason: event.data.reason };
    case 'InvoiceExpired':
      return { ...state, version, status: 'expired' };
  }
}
