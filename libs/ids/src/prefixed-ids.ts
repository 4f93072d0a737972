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

/** A customer wallet (`togo`): one per e-mail address and environment, `wal_live_…` / `wal_test_…`. */
export function newWalletId(env: Environment): string {
  return `wal_${env}_${randomBase62()}`;
}

const WALLET_ID = new RegExp(`^wal_(live|test)_${RANDOM}$`);
export function isWalletId(id: string): boolean {
  return WALLET_ID.test(id);
}

export function newRefundId(): string {
  return `re_${randomBase62()}`;
}

export function newEventId(): string {
  return `evt_${randomBase62()}`;
}

// Request ids must be unique, not secret: a random prefix per process and a counter cost nothing per request
// (fresh random bytes for each were ~4 % of the gateway's CPU under load). Same shape as the other ids.
const requestIdPrefix = randomBase62(16);
let requestCounter = 0;

export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 36 ** 8;
  return `req_${requestIdPrefix}${requestCounter.toString(36).padStart(8, '0')}`;
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
