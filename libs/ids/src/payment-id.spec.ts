import { createPaymentIdGenerator, isPaymentId, newPaymentId, PAYMENT_ID_EPOCH_MS, paymentIdTime } from './payment-id';

describe('payment ids', () => {
  it('are decimal 64-bit numbers that never start with 0', () => {
    const id = newPaymentId();
    expect(id).toMatch(/^[1-9]\d{0,18}$/);
    expect(isPaymentId(id)).toBe(true);
  });

  it('strictly increase within a process', () => {
    const ids = Array.from({ length: 5000 }, () => BigInt(newPaymentId()));
    for (let i = 1; i < ids.length; i += 1) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('carry their creation time', () => {
    const at = Date.UTC(2025, 5, 1, 12, 0, 0, 123);
    const generator = createPaymentIdGenerator({ now: () => at, randomStart: () => 7 });
    const id = generator.next();
    expect(BigInt(id)).toBe((BigInt(at - PAYMENT_ID_EPOCH_MS) << 22n) | 7n);
    expect(paymentIdTime(id)?.toISOString()).toBe('2025-06-01T12:00:00.123Z');
  });

  it('keep increasing when the clock stands still or steps back', () => {
    let clock = Date.UTC(2025, 0, 1);
    const generator = createPaymentIdGenerator({ now: () => clock, randomStart: () => 100 });
    const a = BigInt(generator.next());
    const b = BigInt(generator.next());
    clock -= 5000;
    const c = BigInt(generator.next());
    expect(b).toBe(a + 1n);
    expect(c).toBe(b + 1n);
  });

  it('borrow the next millisecond when the low bits run out', () => {
    const clock = Date.UTC(2025, 0, 1);
    const generator = createPaymentIdGenerator({ now: () => clock, randomStart: () => (1 << 22) - 1 });
    const a = BigInt(generator.next());
    const b = BigInt(generator.next());
    expect(b).toBe(a + 1n);
    expect(b >> 22n).toBe(BigInt(clock - PAYMENT_ID_EPOCH_MS + 1));
    expect(b & ((1n << 22n) - 1n)).toBe(0n);
  });

  it('refuse a clock before the epoch', () => {
    const generator = createPaymentIdGenerator({ now: () => PAYMENT_ID_EPOCH_MS });
    expect(() => generator.next()).toThrow(RangeError);
  });

  it.each([['0'], ['0123'], ['-1'], ['12a'], ['9223372036854775808'], [''], [123]])('rejects %p as a payment id', (value) => {
    expect(isPaymentId(value)).toBe(false);
  });

  it('accepts the largest int64', () => {
    expect(isPaymentId('9223372036854775807')).toBe(true);
    expect(paymentIdTime('nope')).toBeNull();
  });
});
