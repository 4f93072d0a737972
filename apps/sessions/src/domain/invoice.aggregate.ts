// Invoice: an event-sourced aggregate like the payment intent. Transitions (spec + DESIGN §5):
//
//   (none)           create                  -> pending
//   pending, failed  pay                     -> paid     (fee, net, paid_at, payment filled)
//   pending, failed  payment declined        -> failed   (it may still be paid later)
//   pending, failed  expire (after expires_at) -> expired
//
// paid and expired are final. Once expires_at has passed every command sees a pending or failed invoice as
// expired. The invoice number is allocated by the caller (per merchant and environment).
import { environmentOfInvoiceId, isPaymentId, type Environment } from '@payments/ids';
import { DEFAULT_FEE_SCHEDULE, feeFor, type FeeSchedule } from '@payments/money';
import { DomainError } from './domain-error';
import type { InvoiceCreated, InvoiceEvent, InvoicePayer } from './invoice.events';
import { maskPhone } from './phone-mask';
import {
  addSeconds,
  assertAmount,
  assertCurrency,
  assertExpiresIn,
  assertMethods,
  DEFAULT_INVOICE_EXPIRES_IN_SECONDS,
  INVOICE_PAYMENT_METHODS,
  isoTime,
  type Currency,
  type Customer,
  type InvoicePaymentMethod,
  type Metadata,
} from './session-types';

import { isFinalInvoiceStatus, type InvoiceStatus } from '@payments/contracts';

export { INVOICE_FINAL_STATUSES, isFinalInvoiceStatus, type InvoiceStatus } from '@payments/contracts';

export interface InvoicePayment {
  /** The payment id. */
  readonly reference: string;
  readonly method: InvoicePaymentMethod;
  readonly payer: InvoicePayer;
  readonly paidAt: string;
}

export interface InvoiceState {
  readonly id: string;
  readonly number: string;
  readonly merchantId: string;
  readonly environment: Environment;
  /** Stored status; reads go through effectiveStatus(now). */
  readonly status: InvoiceStatus;
  readonly amountCents: number;
  readonly currency: Currency;
  readonly description: string | null;
  readonly externalRef: string | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  readonly methods: readonly InvoicePaymentMethod[];
  readonly customer: Customer | null;
  readonly metadata: Metadata;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly paidAt: string | null;
  /** 0 until paid. */
  readonly feeCents: number;
  /** The amount until paid, then amount - fee. */
  readonly netCents: number;
  readonly payment: InvoicePayment | null;
  readonly failureReason: string | null;
  /** The merchant's fee terms agreed at creation; null means the default schedule. */
  readonly feeSchedule: FeeSchedule | null;
  readonly version: number;
}

export interface CreateInvoiceInput {
  readonly id: string;
  readonly number: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly amountCents: number;
  readonly currency?: string;
  readonly description?: string | null;
  readonly externalRef?: string | null;
  readonly successUrl?: string | null;
  readonly cancelUrl?: string | null;
  readonly methods: readonly InvoicePaymentMethod[];
  readonly customer?: Customer | null;
  readonly metadata?: Metadata | null;
  readonly expiresInSeconds?: number;
  /** The merchant's fee schedule (overrides merged), recorded so the fee at payment follows the terms at creation. */
  readonly feeSchedule?: FeeSchedule | null;
  readonly now: Date;
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

export class Invoice {
  private constructor(readonly state: InvoiceState) {}

  static create(input: CreateInvoiceInput): InvoiceEvent[] {
    if (environmentOfInvoiceId(input.id) !== input.environment) {
      throw new DomainError('invalid_request', `invoice id ${input.id} is not a ${input.environment} id`);
    }
    if (!/^\d{1,20}$/.test(input.number)) throw new DomainError('invalid_request', 'invoice number must be digits');
    assertAmount(input.amountCents);
    const currency = input.currency ?? 'USD';
    assertCurrency(currency);
    assertMethods(input.methods, INVOICE_PAYMENT_METHODS);
    const expiresIn = input.expiresInSeconds ?? DEFAULT_INVOICE_EXPIRES_IN_SECONDS;
    assertExpiresIn(expiresIn);
    const created: InvoiceCreated = {
      type: 'InvoiceCreated',
      data: {
        id: input.id,
        number: input.number,
        merchantId: input.merchantId,
        environment: input.environment,
        amountCents: input.amountCents,
        currency,
        description: input.description ?? null,
        externalRef: input.externalRef ?? null,
        successUrl: input.successUrl ?? null,
        cancelUrl: input.cancelUrl ?? null,
        methods: [...input.methods],
        customer: input.customer ?? null,
        metadata: input.metadata ?? {},
        createdAt: isoTime(input.now),
        expiresAt: isoTime(addSeconds(input.now, expiresIn)),
        ...(input.feeSchedule ? { feeSchedule: { ...input.feeSchedule } } : {}),
      },
    };
    return [created];
  }

  static fromEvents(events: readonly InvoiceEvent[]): Invoice {
    const [first, ...rest] = events;
    if (first?.type !== 'InvoiceCreated') throw new Error('an invoice stream starts with InvoiceCreated');
    return new Invoice(initialState(first)).apply(rest);
  }

  /** Wraps a state already built (e.g. a read-model row or snapshot) to query it. */
  static fromState(state: InvoiceState): Invoice {
    return new Invoice(state);
  }

  apply(events: readonly InvoiceEvent[]): Invoice {
    return new Invoice(events.reduce(evolve, this.state));
  }

  get id(): string {
    return this.state.id;
  }

  get version(): number {
    return this.state.version;
  }

  effectiveStatus(now: Date): InvoiceStatus {
    return this.isExpiredAt(now) ? 'expired' : this.state.status;
  }

  isExpiredAt(now: Date): boolean {
    if (this.state.status === 'expired') return true;
    return !isFinalInvoiceStatus(this.state.status) && now.getTime() >= Date.parse(this.state.expiresAt);
  }

  /** The customer paid: fee for the method, net, paid_at and the payment record (phone masked). */
  pay(input: PayInvoiceInput): InvoiceEvent[] {
    this.requireStatus(input.now, ['pending', 'failed'], 'pay');
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
            phone: maskPhone(payer.phone),
            country: payer.country ? payer.country.toUpperCase() : null,
          },
          paidAt: isoTime(input.now),
        },
      },
    ];
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

  /** Records the expiry once expires_at has passed. */
  expire(now: Date): InvoiceEvent[] {
    if (isFinalInvoiceStatus(this.state.status)) {
      throw new DomainError('invalid_state', `cannot expire an invoice that is ${this.state.status}`);
    }
    if (now.getTime() < Date.parse(this.state.expiresAt)) {
      throw new DomainError('invalid_state', `invoice does not expire before ${this.state.expiresAt}`);
    }
    return [expired(now)];
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

  private requireMethodAvailable(method: InvoicePaymentMethod): void {
    if (!this.state.methods.includes(method)) {
      throw new DomainError('payment_methods_unavailable', `payment method ${method} is not available for this invoice`);
    }
  }

  private requireStatus(now: Date, allowed: readonly InvoiceStatus[], action: string): InvoiceStatus {
    const status = this.effectiveStatus(now);
    if (!allowed.includes(status)) throw new DomainError('invalid_state', `cannot ${action} an invoice that is ${status}`);
    return status;
  }
}

function expired(now: Date): InvoiceEvent {
  return { type: 'InvoiceExpired', data: { expiredAt: isoTime(now) } };
}

function initialState({ data }: InvoiceCreated): InvoiceState {
  return {
    id: data.id,
    number: data.number,
    merchantId: data.merchantId,
    environment: data.environment,
    status: 'pending',
    amountCents: data.amountCents,
    currency: data.currency,
    description: data.description,
    externalRef: data.externalRef,
    successUrl: data.successUrl,
    cancelUrl: data.cancelUrl,
    methods: data.methods,
    customer: data.customer,
    metadata: data.metadata,
    createdAt: data.createdAt,
    expiresAt: data.expiresAt,
    paidAt: null,
    feeCents: 0,
    netCents: data.amountCents,
    payment: null,
    failureReason: null,
    feeSchedule: data.feeSchedule ?? null,
    version: 1,
  };
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
        feeCents: event.data.feeCents,
        netCents: event.data.netCents,
        payment: { reference: event.data.paymentId, method: event.data.method, payer: event.data.payer, paidAt: event.data.paidAt },
      };
    case 'InvoicePaymentFailed':
      return { ...state, version, status: 'failed', failureReason: event.data.reason };
    case 'InvoiceExpired':
      return { ...state, version, status: 'expired' };
  }
}
