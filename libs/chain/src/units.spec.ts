import { ConfigError } from '@payments/config';
import { centsToTokenUnits, tokenUnitsToCents } from './index';

describe('token units and cents', () => {
  it('convert 6-decimal amounts exactly both ways', () => {
    expect(tokenUnitsToCents(12_340_000n, 6)).toEqual({ cents: 1234n, dust: 0n });
    expect(centsToTokenUnits(1234n, 6)).toBe(12_340_000n);
    expect(tokenUnitsToCents(1n, 6)).toEqual({ cents: 0n, dust: 1n });
    expect(tokenUnitsToCents(12_349_999n, 6)).toEqual({ cents: 1234n, dust: 9_999n });
  });

  it('convert 18-decimal amounts exactly both ways, far past a float\'s precision', () => {
    const units = 123_456_789_012_345_678_901_234_567n; // 123,456,789.012345678901234567 tokens
    expect(tokenUnitsToCents(units, 18)).toEqual({ cents: 12_345_678_901n, dust: 2_345_678_901_234_567n });
    expect(centsToTokenUnits(12_345_678_901n, 18)).toBe(123_456_789_010_000_000_000_000_000n);
    expect(tokenUnitsToCents(centsToTokenUnits(99_999_999_999_999n, 18), 18)).toEqual({ cents: 99_999_999_999_999n, dust: 0n });
    expect(tokenUnitsToCents(10n ** 16n - 1n, 18)).toEqual({ cents: 0n, dust: 10n ** 16n - 1n });
  });

  it('round-trip every cent amount for 2, 6, 8 and 18 decimals', () => {
    for (const decimals of [2, 6, 8, 18]) {
      for (const cents of [0n, 1n, 99n, 100n, 1_000_001n, 2n ** 63n]) {
        expect(tokenUnitsToCents(centsToTokenUnits(cents, decimals), decimals)).toEqual({ cents, dust: 0n });
      }
    }
    expect(tokenUnitsToCents(123n, 2)).toEqual({ cents: 123n, dust: 0n });
  });

  it('refuse decimals below 2 and negative amounts', () => {
    expect(() => tokenUnitsToCents(1n, 1)).toThrow(ConfigError);
    expect(() => centsToTokenUnits(1n, 0)).toThrow(/decimals must be an integer from 2/);
    expect(() => tokenUnitsToCents(1n, 6.5)).toThrow(ConfigError);
    expect(() => tokenUnitsToCents(-1n, 6)).toThrow(RangeError);
    expect(() => centsToTokenUnits(-1n, 6)).toThrow(RangeError);
  });
});
