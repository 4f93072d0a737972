import { BASE62_ALPHABET, randomBase62 } from './random-base62';

describe('randomBase62', () => {
  it('gives 24 base62 characters by default and the asked length otherwise', () => {
    expect(randomBase62()).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(randomBase62(43)).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(randomBase62(0)).toBe('');
  });

  it('refuses a bad length', () => {
    expect(() => randomBase62(-1)).toThrow(RangeError);
    expect(() => randomBase62(1.5)).toThrow(RangeError);
  });

  it('does not repeat', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => randomBase62()));
    expect(seen.size).toBe(2000);
  });

  it('uses every character about equally (no modulo bias toward the first 8)', () => {
    const counts = new Map<string, number>();
    const sample = randomBase62(62 * 1000);
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 1000 each; with modulo bias over 256 the first 8 would get about 1.25x.
    // A binomial with sd ~31 stays well inside these bounds.
    for (const ch of BASE62_ALPHABET) {
      const n = counts.get(ch) ?? 0;
      expect(n).toBeGreaterThan(820);
      expect(n).toBeLessThan(1180);
    }
    const first8 = [...BASE62_ALPHABET.slice(0, 8)].reduce((sum, ch) => sum + (counts.get(ch) ?? 0), 0);
    expect(first8).toBeLessThan(8 * 1100);
  });
});
