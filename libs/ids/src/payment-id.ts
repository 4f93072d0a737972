// Payment ids: numeric-looking, time-ordered 64-bit values written in decimal.
// Layout: (milliseconds since PAYMENT_ID_EPOCH_MS) << 22 | 22 low bits.
// The low bits start at a random value in each new millisecond (so two processes rarely meet) and count up
// within it, which keeps ids strictly increasing in one process. The database's unique key is the final guard.
import { randomInt } from 'node:crypto';

/** 2024-01-01T00:00:00Z. 41 bits of milliseconds from here last until about 2093. */
export const PAYMENT_ID_EPOCH_MS = 1_704_067_200_000;

const LOW_BITS = 22n;
const LOW_LIMIT = 1 << 22;
// Random start in the lower half leaves at least 2^21 ids per millisecond before borrowing the next one.
const RANDOM_START_LIMIT = 1 << 21;
const MAX_INT64 = (1n << 63n) - 1n;

export interface PaymentIdGenerator {
  next(): string;
}

export interface PaymentIdGeneratorOptions {
  readonly now?: () => number;
  readonly randomStart?: () => number;
}

export function createPaymentIdGenerator(options: PaymentIdGeneratorOptions = {}): PaymentIdGenerator {
  const now = options.now ?? Date.now;
  const randomStart = options.randomStart ?? (() => randomInt(RANDOM_START_LIMIT));
  let lastMs = -1;
  let lastLow = 0;
  return {
    next(): string {
      const ms = Math.floor(now()) - PAYMENT_ID_EPOCH_MS;
      if (ms <= 0) throw new RangeError('clock is before the payment id epoch');
      if (ms > lastMs) {
        lastMs = ms;
        lastLow = randomStart();
      } else {
        // Same millisecond or the clock stepped back: keep counting on the last millisecond used.
        lastLow += 1;
        if (lastLow >= LOW_LIMIT) {
          lastMs += 1;
          lastLow = 0;
        }
      }
      return ((BigInt(lastMs) << LOW_BITS) | BigInt(lastLow)).toString();
    },
  };
}

const defaultGenerator = createPaymentIdGenerator();

/** A new payment id, e.g. "1589443891234567890"-like; never starts with 0, strictly increasing in this process. */
export function newPaymentId(): string {
  return defaultGenerator.next();
}

/** True for a decimal string that is a positive 64-bit signed integer without leading zeros. */
export function isPaymentId(value: unknown): value is string {
  return typeof value === 'string' && /^[1-9]\d{0,18}$/.test(value) && BigInt(value) <= MAX_INT64;
}

/** When a payment id was made (millisecond precision), or null when it is not a payment id. */
export function paymentIdTime(id: string): Date | null {
  if (!isPaymentId(id)) return null;
  return new Date(Number(BigInt(id) >> LOW_BITS) + PAYMENT_ID_EPOCH_MS);
}
