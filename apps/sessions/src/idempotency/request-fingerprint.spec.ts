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
