import { canonicalJson, requestFingerprint } from './request-fingerprint';

describe('requestFingerprint', () => {
  it('ignores key order and undefined members, at every level', () => {
    const a = requestFingerprint('c', { amount: '1.00', customer: { name: 'A', email: 'a@x.io' }, x: undefined });
    const b = requestFingerprint('c', { customer: { email: 'a@x.io', name: 'A' }, amount: '1.00' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs by command and by any value', () => {
    const base = requestFingerprint('c', { amount: '1.00', methods: ['togo', 'lahza'] });
    expect(requestFingerprint('d', { amount: '1.00', methods: ['togo', 'lahza'] })).not.toBe(base);
    expect(requestFingerprint('c', { amount: '1.0', methods: ['togo', 'lahza'] })).not.toBe(base);
    expect(requestFingerprint('c', { amount: '1.00', methods: ['lahza', 'togo'] })).not.toBe(base);
  });

  it('writes canonical JSON', () => {
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: true })).toBe('{"a":true,"b":[1,{"c":"x","d":null}]}');
  });
});

// Fingerprints are stored with each idempotency key (gateway and sessions): the same request must keep giving the
// same fingerprint across releases, or a retry after a deploy would be refused as a reused key.
describe('requestFingerprint stability', () => {
  it('gives the fingerprints the services stored before (keys sorted, unicode as is, numbers as JSON writes them)', () => {
    const body = { amount: '74.00', currency: 'USD', customer: { name: 'Zoë Ω', email: 'a@x.io' }, metadata: { b: '\u2028', a: 'é😀', n: 1.5e-7 }, methods: ['togo', 'lahza'], x: undefined };
    expect(requestFingerprint('POST /api/v1/payment-intents', body)).toBe('786dda743143a7ad664d53160e9137e7784b0e39904e83c0593f07aa14667805');
    expect(requestFingerprint('createPaymentIntent', body)).toBe('0a9fdb78de1b10aad6e2c53e1a62d184f0c0126007188ea8dd746a5132301b57');
  });
});
