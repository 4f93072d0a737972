// Value types shared by payment intents and invoices.
import { MAX_AMOUNT_CENTS, MIN_AMOUNT_CENTS } from '@payments/money';
import { DomainError } from './domain-error';

export type Currency = 'USD';

/** Methods on the payment-intent surface. */
export type IntentPaymentMethod = 'togo' | 'lahza' | 'crypto';
export const INTENT_PAYMENT_METHODS: readonly IntentPaymentMethod[] = ['togo', 'lahza', 'crypto'];

/** Methods on the invoice surface: a payment from a service balance is reported as `wallet` there. */
export type InvoicePaymentMethod = 'wallet' | 'lahza' | 'crypto';
export const INVOICE_PAYMENT_METHODS: readonly InvoicePaymentMethod[] = ['wallet', 'lahza', 'crypto'];

/** The invoice surface's name for an intent-surface method (`togo` is `wallet` there). */
export function invoiceMethodOf(method: IntentPaymentMethod): InvoicePaymentMethod {
  return method === 'togo' ? 'wallet' : method;
}

export interface Customer {
  readonly name?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly city?: string;
  readonly country?: string;
}

/** Merchant's free-form key/value data, stored and returned as given. */
export type Metadata = Readonly<Record<string, unknown>>;

export const DEFAULT_INTENT_EXPIRES_IN_SECONDS = 1800;
export const DEFAULT_INVOICE_EXPIRES_IN_SECONDS = 86_400;
export const MIN_EXPIRES_IN_SECONDS = 300;
export const MAX_EXPIRES_IN_SECONDS = 86_400;

export function assertAmount(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents < MIN_AMOUNT_CENTS || amountCents > MAX_AMOUNT_CENTS) {
    throw new DomainError('invalid_request', `amount must be whole cents in ${MIN_AMOUNT_CENTS}..${MAX_AMOUNT_CENTS}`);
  }
}

export function assertCurrency(currency: string): asserts currency is Currency {
  if (currency !== 'USD') throw new DomainError('invalid_request', 'currency must be USD');
}

export function assertExpiresIn(seconds: number): void {
  if (!Number.isInteger(seconds) || seconds < MIN_EXPIRES_IN_SECONDS || seconds > MAX_EXPIRES_IN_SECONDS) {
    throw new DomainError('invalid_request', `expires_in must be whole seconds in ${MIN_EXPIRES_IN_SECONDS}..${MAX_EXPIRES_IN_SECONDS}`);
  }
}

export function assertMethods<M extends string>(methods: readonly M[], allowed: readonly M[]): void {
  if (methods.length === 0) throw new DomainError('invalid_request', 'at least one payment method is needed');
  if (new Set(methods).size !== methods.length) throw new DomainError('invalid_request', 'payment methods must be unique');
  for (const method of methods) {
    if (!allowed.includes(method)) throw new DomainError('invalid_request', `unknown payment method ${String(method)}`);
  }
}

/** ISO 8601 UTC with milliseconds; refuses an invalid date so no "Invalid Date" ever lands in an event. */
export function isoTime(at: Date): string {
  if (Number.isNaN(at.getTime())) throw new DomainError('invalid_request', 'invalid timestamp');
  return at.toISOString();
}

export function addSeconds(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}
