import { canonicalJson } from '@payments/contracts';
import { requestFingerprint } from './request-fingerprint';

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('gives the same text for the same JSON written differently', () => {
    const one = JSON.parse('{"amount":"10.00","customer":{"name":"A","email":"a@example.com"}}');
    const two = JSON.parse('{ "customer": { "email": "a@example.com", "name": "A" },\n "amount": "10.00" }');
    expect(canonicalJson(one)).toBe(canonicalJson(two));
  });

  it('writes scalars, null and missing bodies as JSON', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
    expect(canonicalJson({ a: undefined, b: false })).toBe('{"b":false}');
  });
});

describe('requestFingerprint', () => {
  it('depends on method, path and body, not on key order or the query string', () => {
    const base = requestFingerprint('POST', '/api/v1/payment-intents', { a: 1, b: 2 });
    expect(requestFingerprint('POST', '/api/v1/payment-intents?x=1', { b: 2, a: 1 })).toBe(base);
    expect(requestFingerprint('POST', '/api/v1/invoices', { a: 1, b: 2 })).not.toBe(base);
    expect(requestFingerprint('PUT', '/api/v1/payment-intents', { a: 1, b: 2 })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v1/payment-intents', { a: 1, b: 3 })).not.toBe(base);
  });
});
