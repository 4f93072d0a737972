import fc from 'fast-check';
import { formatMoney, MAX_AMOUNT_CENTS, MIN_AMOUNT_CENTS, parseMoneyString } from './money-string';

describe('parseMoneyString', () => {
  it.each([
    ['74', 7400],
    ['74.5', 7450],
    ['74.50', 7450],
    ['74.05', 7405],
    ['0.50', 50],
    ['0.5', 50],
    ['1', 100],
    ['999999.99', 99_999_999],
    ['000012.30', 1230],
  ])('reads %s as %d cents', (input, cents) => {
    expect(parseMoneyString(input)).toEqual({ ok: true, cents });
  });

  it.each([
    [74],
    [null],
    [undefined],
    [{}],
    [''],
    ['.50'],
    ['1.'],
    ['1.234'],
    ['-1.00'],
    ['+1.00'],
    ['1e3'],
    [' 1.00'],
    ['1.00 '],
    ['1,00'],
    ['0x10'],
    ['١٢'], // non-ASCII digits are not \d without the u flag, and not money either
  ])('rejects %p by pattern', (input) => {
    const result = parseMoneyString(input);
    expect(result).toMatchObject({ ok: false, reason: 'pattern' });
  });

  it.each([['0'], ['0.00'], ['0.49'], ['0.01']])('rejects %s below the minimum', (input) => {
    expect(parseMoneyString(input)).toEqual({ ok: false, reason: 'minimum', message: 'must be at least 0.50' });
  });

  it.each([['1000000'], ['1000000.00'], ['1000000.01'], ['99999999999999999999999999']])(
    'rejects %s above the maximum',
    (input) => {
      expect(parseMoneyString(input)).toEqual({ ok: false, reason: 'maximum', message: 'must be at most 999999.99' });
    },
  );

  it('accepts custom bounds, e.g. a refund of one cent', () => {
    expect(parseMoneyString('0.01', { minCents: 1 })).toEqual({ ok: true, cents: 1 });
    expect(parseMoneyString('5.01', { maxCents: 500 })).toMatchObject({ ok: false, reason: 'maximum' });
  });

  it('round-trips every amount in range through formatMoney', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_AMOUNT_CENTS, max: MAX_AMOUNT_CENTS }), (cents) => {
        expect(parseMoneyString(formatMoney(cents))).toEqual({ ok: true, cents });
      }),
    );
  });
});

describe('formatMoney', () => {
  it.each([
    [7400, '74.00'],
    [50, '0.50'],
    [5, '0.05'],
    [0, '0.00'],
    [99_999_999, '999999.99'],
    [-150, '-1.50'],
    [-5, '-0.05'],
    [12345678901234n, '123456789012.34'],
  ])('formats %p as %s', (cents, text) => {
    expect(formatMoney(cents)).toBe(text);
  });

  it.each([[1.5], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 53]])('refuses %p', (cents) => {
    expect(() => formatMoney(cents)).toThrow(RangeError);
  });
});
