import { maskPhone } from './phone-mask';

describe('maskPhone', () => {
  it.each([
    ['+970 599 123 456', '+970 5** *** 456'],
    ['+970599123456', '+9705*****456'],
    ['+1 (555) 010-0123', '+1 (555) ***-*123'],
    ['0599123456', '0599***456'],
    ['12345678', '1234*678'],
    ['+1234567', '+****567'], // 7 digits or fewer: only the last 3 stay
    ['123', '123'],
    ['  +970 599 123 456 ', '+970 5** *** 456'],
    ['ext', 'ext'],
  ])('masks %p as %p', (phone, masked) => {
    expect(maskPhone(phone)).toBe(masked);
  });

  it.each([[null], [undefined], [''], ['   ']])('gives null for %p', (phone) => {
    expect(maskPhone(phone)).toBeNull();
  });
});
