import { API_KEY_SECRET_LENGTH, generateApiKey, hashSecret, parseApiKey, secretMatches } from './api-key';

describe('API keys', () => {
  it('are pay_<env>_<key id>.<secret>', () => {
    const live = generateApiKey('live');
    expect(live.token).toBe(`pay_live_${live.keyId}.${live.secret}`);
    expect(generateApiKey('test').token).toMatch(/^pay_test_[0-9A-Za-z]{16}\.[0-9A-Za-z]{43}$/);
  });

  it('have a secret of at least 192 bits', () => {
    expect(API_KEY_SECRET_LENGTH * Math.log2(62)).toBeGreaterThanOrEqual(192);
    expect(generateApiKey('live').secret).toHaveLength(API_KEY_SECRET_LENGTH);
  });

  it('parse back into environment, key id and secret', () => {
    const key = generateApiKey('test');
    expect(parseApiKey(key.token)).toEqual({ env: 'test', keyId: key.keyId, secret: key.secret });
  });

  it.each([
    ['pay_prod_abcdefghijklmnop.abcdefghijklmnopqrstuvwxyzABCDEF'],
    ['pay_live_abcdefghijklmnop'],
    ['pay_live_abcdefghijklmnop.short'],
    ['pay_live_abc.abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'],
    ['pay_live_abcdefghijklmnop.abcdefghijklmnopqrstuvwxyzABCDEF.x'],
    ['Bearer pay_live_abcdefghijklmnop.abcdefghijklmnopqrstuvwxyzABCDEF'],
    ['whsec_abc'],
    [`pay_live_abcdefghijklmnop.${'a'.repeat(300)}`],
    [''],
    [null],
  ])('reject %p', (token) => {
    expect(parseApiKey(token)).toBeNull();
  });

  it('store only a sha256 hex hash and compare it in constant time', () => {
    const { secret } = generateApiKey('live');
    const hash = hashSecret(secret);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(secretMatches(secret, hash)).toBe(true);
    expect(secretMatches(`${secret}x`, hash)).toBe(false);
    expect(secretMatches(secret, hashSecret('other'))).toBe(false);
  });

  it('never match a malformed stored hash', () => {
    expect(secretMatches('abc', '')).toBe(false);
    expect(secretMatches('abc', 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD')).toBe(false);
    expect(secretMatches('abc', 'zz')).toBe(false);
  });
});
