import fc from 'fast-check';
import { computeFee, computeNet, DEFAULT_FEE_SCHEDULE, feeFor, feeSchedule, isFeeMethod, merchantFeeSchedule, parseFeeSchedule } from './fee-policy';

describe('fee schedule', () => {
  it('defaults to 0.5% for balance methods and 1.5% for crypto and lahza', () => {
    expect(DEFAULT_FEE_SCHEDULE).toEqual({ togo: 50, wallet: 50, crypto: 150, lahza: 150 });
    expect(Object.isFrozen(DEFAULT_FEE_SCHEDULE)).toBe(true);
  });

  it('merges merchant overrides over the defaults', () => {
    expect(feeSchedule({ lahza: 120, togo: 0 })).toEqual({ togo: 0, wallet: 50, crypto: 150, lahza: 120 });
    expect(feeSchedule()).toEqual(DEFAULT_FEE_SCHEDULE);
  });

  it.each([[-1], [10_001], [1.5], [Number.NaN]])('refuses the rate %p', (rate) => {
    expect(() => feeSchedule({ crypto: rate })).toThrow(RangeError);
  });

  it('refuses an unknown method', () => {
    expect(() => feeSchedule({ card: 100 } as never)).toThrow(/unknown payment method/);
  });

  it('knows its methods', () => {
    expect(isFeeMethod('wallet')).toBe(true);
    expect(isFeeMethod('card')).toBe(false);
    expect(isFeeMethod(1)).toBe(false);
  });
});

describe('computeFee', () => {
  it('is amount x rate rounded half-up to the cent', () => {
    expect(computeFee(7400, 50)).toBe(37); // 0.37
    expect(computeFee(7400, 150)).toBe(111); // 1.11
    expect(computeFee(100, 50)).toBe(1); // 0.005 -> 0.01: exactly half rounds up
    expect(computeFee(99, 50)).toBe(0); // 0.00495 -> 0.00
    expect(computeFee(300, 150)).toBe(5); // 0.045 -> 0.05: exactly half rounds up
    expect(computeFee(299, 150)).toBe(4); // 0.04485 -> 0.04
    expect(computeFee(50, 50)).toBe(0); // 0.0025 -> 0.00
    expect(computeFee(99_999_999, 150)).toBe(1_500_000); // 14999.99985 -> 15000.00
    expect(computeFee(0, 150)).toBe(0);
    expect(computeFee(1234, 10_000)).toBe(1234);
  });

  it('matches exact rational rounding for every amount and rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 10_000 }), (amount, rate) => {
        const fee = computeFee(amount, rate);
        const twice = 2 * (amount * rate - fee * 10_000); // twice the remainder, exact in doubles at these sizes
        expect(twice).toBeGreaterThanOrEqual(-10_000); // rounded up by at most half a cent
        expect(twice).toBeLessThan(10_000); // rounded down by less than half a cent
      }),
    );
  });

  it.each([[-1], [1.5], [Number.MAX_SAFE_INTEGER + 1]])('refuses the amount %p', (amount) => {
    expect(() => computeFee(amount, 50)).toThrow(RangeError);
  });
});

describe('feeFor', () => {
  it('gives rate, fee and net = amount - fee', () => {
    expect(feeFor(7400, 'togo')).toEqual({ rateBps: 50, feeCents: 37, netCents: 7363 });
    expect(feeFor(7400, 'crypto')).toEqual({ rateBps: 150, feeCents: 111, netCents: 7289 });
    expect(feeFor(7400, 'lahza', feeSchedule({ lahza: 100 }))).toEqual({ rateBps: 100, feeCents: 74, netCents: 7326 });
    expect(computeNet(7400, 37)).toBe(7363);
  });
});

describe('merchantFeeSchedule', () => {
  it('puts a merchant\'s own rates over the standard schedule; togo alone prices wallet too', () => {
    expect(merchantFeeSchedule({})).toEqual(DEFAULT_FEE_SCHEDULE);
    expect(merchantFeeSchedule({ lahza: 120 })).toEqual({ togo: 50, wallet: 50, crypto: 150, lahza: 120 });
    expect(merchantFeeSchedule({ togo: 0 })).toEqual({ togo: 0, wallet: 0, crypto: 150, lahza: 150 });
    expect(merchantFeeSchedule({ togo: 0, wallet: 30 })).toEqual({ togo: 0, wallet: 30, crypto: 150, lahza: 150 });
    const standard = parseFeeSchedule('lahza=100');
    expect(merchantFeeSchedule({ crypto: 90 }, standard)).toEqual({ togo: 50, wallet: 50, crypto: 90, lahza: 100 });
  });
});

describe('parseFeeSchedule', () => {
  it('reads basis points per method over DESIGN\'s schedule', () => {
    expect(parseFeeSchedule('')).toEqual(DEFAULT_FEE_SCHEDULE);
    expect(parseFeeSchedule('lahza=120')).toEqual({ togo: 50, wallet: 50, crypto: 150, lahza: 120 });
    expect(parseFeeSchedule(' lahza = 120 , crypto=0 ')).toEqual({ togo: 50, wallet: 50, crypto: 0, lahza: 120 });
    expect(parseFeeSchedule('togo=40')).toEqual({ togo: 40, wallet: 40, crypto: 150, lahza: 150 });
  });

  it.each([['lahza'], ['lahza=1.2'], ['lahza=-1'], ['lahza=10001'], ['paypal=100'], ['lahza=100,lahza=120'], ['LAHZA=100']])('refuses %p', (text) => {
    expect(() => parseFeeSchedule(text)).toThrow(RangeError);
  });
});
