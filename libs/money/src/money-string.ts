// MoneyString <-> integer cents. Parsing reads the digits directly so no binary float ever touches an amount.

/** Smallest amount a session may ask for: 0.50 USD. */
export const MIN_AMOUNT_CENTS = 50;
/** Largest amount a session may ask for: 999999.99 USD. */
export const MAX_AMOUNT_CENTS = 99_999_999;
/**
 * Largest amount a payment, and so a refund, may carry: 99999999999.99 USD. A crypto payment is what was received,
 * over-payment included, so it may exceed what a session may ask for; this bound keeps every sum a safe integer.
 */
export const MAX_PAYMENT_CENTS = 9_999_999_999_999;

/** The spec's MoneyString pattern: decimal USD units, at most two decimals. */
export const MONEY_STRING_PATTERN = /^\d+(?:\.\d{1,2})?$/;

export type MoneyParseErrorReason = 'pattern' | 'minimum' | 'maximum';

export type MoneyParseResult =
  | { readonly ok: true; readonly cents: number }
  | { readonly ok: false; readonly reason: MoneyParseErrorReason; readonly message: string };

export interface MoneyBounds {
  /** Inclusive lower bound in cents; defaults to MIN_AMOUNT_CENTS. */
  readonly minCents?: number;
  /** Inclusive upper bound in cents; defaults to MAX_AMOUNT_CENTS. */
  readonly maxCents?: number;
}

/**
 * Parses a MoneyString (e.g. "74", "74.5", "74.50") into integer cents and checks it against the bounds.
 * The message is meant for an API error body; the caller adds the field name.
 */
export function parseMoneyString(input: unknown, bounds: MoneyBounds = {}): MoneyParseResult {
  const minCents = bounds.minCents ?? MIN_AMOUNT_CENTS;
  const maxCents = bounds.maxCents ?? MAX_AMOUNT_CENTS;
  if (typeof input !== 'string' || !MONEY_STRING_PATTERN.test(input)) {
    return {
      ok: false,
      reason: 'pattern',
      message: 'must be a string of US dollars with at most two decimals, e.g. "74.00"',
    };
  }
  const [whole = '', fraction = ''] = input.split('.');
  const wholeDigits = whole.replace(/^0+(?=\d)/, '');
  // More whole digits than the maximum has cannot be in range, and would not be a safe integer either.
  const maxWholeDigits = String(Math.floor(maxCents / 100)).length;
  const cents =
    wholeDigits.length > maxWholeDigits ? Number.POSITIVE_INFINITY : Number(wholeDigits) * 100 + Number(fraction.padEnd(2, '0'));
  if (cents < minCents) {
    return { ok: false, reason: 'minimum', message: `must be at least ${formatMoney(minCents)}` };
  }
  if (cents > maxCents) {
    return { ok: false, reason: 'maximum', message: `must be at most ${formatMoney(maxCents)}` };
  }
  return { ok: true, cents };
}

/** Integer cents -> MoneyString with exactly two decimals ("74.00", "0.50"); negative values get a leading "-". */
export function formatMoney(cents: number | bigint): string {
  if (typeof cents === 'number' && !Number.isSafeInteger(cents)) {
    throw new RangeError(`amount in cents must be a safe integer, got ${cents}`);
  }
  const value = BigInt(cents);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const fraction = (abs % 100n).toString().padStart(2, '0');
  return `${sign}${abs / 100n}.${fraction}`;
}
