/** Payment methods of the payment-intent surface; a new merchant has all of them enabled. */
export const PAYMENT_METHODS = ['togo', 'lahza', 'crypto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export function isPaymentMethod(value: unknown): value is PaymentMethod {
  return typeof value === 'string' && (PAYMENT_METHODS as readonly string[]).includes(value);
}
