import { checkoutUrl } from './checkout-url';

describe('checkoutUrl', () => {
  it('is base/checkout/id', () => {
    expect(checkoutUrl('https://pay.example.com', 'pi_live_abc')).toBe('https://pay.example.com/checkout/pi_live_abc');
    expect(checkoutUrl('https://pay.example.com//', 'inv_test_abc')).toBe('https://pay.example.com/checkout/inv_test_abc');
    expect(checkoutUrl('https://example.com/pay', 'inv_abc')).toBe('https://example.com/pay/checkout/inv_abc');
  });
});
