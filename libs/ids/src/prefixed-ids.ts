// Public object ids: a type prefix, the environment where the object lives, and 24 random base62 characters.
import type { Environment } from './environment';
import { randomBase62 } from './random-base62';

const RANDOM = '[A-Za-z0-9]{24}';
const PAYMENT_INTENT_ID = new RegExp(`^pi_(live|test)_${RANDOM}$`);
const INVOICE_ID = new RegExp(`^inv_(test_)?${RANDOM}$`);

export function newPaymentIntentId(env: Environment): string {
  return `pi_${env}_${randomBase62()}`;
}

/** Live invoices are `inv_…`, test invoices `inv_test_…` (the spec's shape). */
export function newInvoiceId(env: Environment): string {
  return env === 'test' ? `inv_test_${randomBase62()}` : `inv_${randomBase62()}`;
}

export function newRefundId(): string {
  return `re_${randomBase62()}`;
}

export function newEventId(): string {
  return `evt_${randomBase62()}`;
}

export function newRequestId(): string {
  return `req_${randomBase62()}`;
}

/** The environment a payment intent id belongs to, or null when it is not one of ours. */
export function environmentOfPaymentIntentId(id: unknown): Environment | null {
  if (typeof id !== 'string') return null;
  const match = PAYMENT_INTENT_ID.exec(id);
  return match ? (match[1] as Environment) : null;
}

/** The environment an invoice id belongs to, or null when it is not one of ours. */
export function environmentOfInvoiceId(id: unknown): Environment | null {
  if (typeof id !== 'string') return null;
  const match = INVOICE_ID.exec(id);
  if (!match) return null;
  return match[1] ? 'test' : 'live';
}
