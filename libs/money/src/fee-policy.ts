// Fee schedule in basis points per payment method, and the fee arithmetic (integer only, half-up to the cent).

export type FeeMethod = 'togo' | 'wallet' | 'crypto' | 'lahza';

export const FEE_METHODS: readonly FeeMethod[] = ['togo', 'wallet', 'crypto', 'lahza'];

export type FeeSchedule = Readonly<Record<FeeMethod, number>>;

/** Service balance (togo on intents, wallet on invoices) 0.5%; digital currency and lahza 1.5%. */
export const DEFAULT_FEE_SCHEDULE: FeeSchedule = Object.freeze({ togo: 50, wallet: 50, crypto: 150, lahza: 150 });

const MAX_RATE_BPS = 10_000;

function assertRate(rateBps: number): void {
  if (!Number.isInteger(rateBps) || rateBps < 0 || rateBps > MAX_RATE_BPS) {
    throw new RangeError(`fee rate must be an integer number of basis points in 0..${MAX_RATE_BPS}, got ${rateBps}`);
  }
}

/** The default schedule with a merchant's overrides merged over it; every rate is checked. */
export function feeSchedule(overrides: Partial<Record<FeeMethod, number>> = {}, base: FeeSchedule = DEFAULT_FEE_SCHEDULE): FeeSchedule {
  const merged: Record<FeeMethod, number> = { ...base };
  for (const method of FEE_METHODS) {
    const rate = overrides[method];
    if (rate !== undefined) merged[method] = rate;
  }
  for (const method of FEE_METHODS) assertRate(merged[method]);
  for (const key of Object.keys(overrides)) {
    if (!FEE_METHODS.includes(key as FeeMethod)) throw new RangeError(`unknown payment method in fee schedule: ${key}`);
  }
  return Object.freeze(merged);
}

/**
 * A merchant's schedule: `base` (the operator's standard schedule) with the merchant's own rates over it. `togo`
 * also prices `wallet` unless that has its own rate: both are a payment from a service balance.
 */
export function merchantFeeSchedule(overrides: Partial<Record<FeeMethod, number>>, base: FeeSchedule = DEFAULT_FEE_SCHEDULE): FeeSchedule {
  const merged = overrides.wallet === undefined && overrides.togo !== undefined ? { ...overrides, wallet: overrides.togo } : overrides;
  return feeSchedule(merged, base);
}

/**
 * An operator's standard schedule as a setting: basis points per method over DESIGN's, comma-separated
 * (`lahza=120,crypto=150`; empty for DESIGN's own). Throws a RangeError saying what is wrong.
 */
export function parseFeeSchedule(text: string): FeeSchedule {
  const overrides: Record<string, number> = {};
  for (const part of text.split(',').map((item) => item.trim()).filter(Boolean)) {
    const match = /^([a-z]+) *= *(\d{1,5})$/.exec(part);
    if (!match) throw new RangeError(`"${part}" is not <method>=<basis points> (e.g. lahza=120)`);
    const [, method, bps] = match as unknown as [string, string, string];
    if (method in overrides) throw new RangeError(`${method} is given twice`);
    overrides[method] = Number(bps);
  }
  return merchantFeeSchedule(overrides);
}

export function isFeeMethod(value: unknown): value is FeeMethod {
  return typeof value === 'string' && FEE_METHODS.includes(value as FeeMethod);
}

/** fee = amount x rate / 10000, rounded half-up to the cent, in integer arithmetic. */
export function computeFee(amountCents: number, rateBps: number): number {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) {
    throw new RangeError(`amount in cents must be a non-negative safe integer, got ${amountCents}`);
  }
  assertRate(rateBps);
  // bigint keeps the product exact whatever the amount; adding half the divisor then flooring is half-up.
  const feeCents = (BigInt(amountCents) * BigInt(rateBps) + 5_000n) / 10_000n;
  // At most amount x 100 %, so it is a safe integer again.
  return Number(feeCents);
}

export function computeNet(amountCents: number, feeCents: number): number {
  return amountCents - feeCents;
}

export interface FeeBreakdown {
  readonly rateBps: number;
  readonly feeCents: number;
  readonly netCents: number;
}

/** Fee and net of one payment by the given method under a schedule. */
export function feeFor(amountCents: number, method: FeeMethod, schedule: FeeSchedule = DEFAULT_FEE_SCHEDULE): FeeBreakdown {
  const rateBps = schedule[method];
  if (rateBps === undefined) throw new RangeError(`no fee rate for payment method ${String(method)}`);
  const feeCents = computeFee(amountCents, rateBps);
  return { rateBps, feeCents, netCents: computeNet(amountCents, feeCents) };
}
