import { clientOf } from './address-limits';

describe('clientOf', () => {
  it('is an IPv4 address itself, also written as IPv4-mapped IPv6', () => {
    expect(clientOf('192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('is an IPv6 address’s /64, however it is written', () => {
    expect(clientOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:3::1')).not.toBe(clientOf('2001:db8:1:2::1'));
  });

  it('leaves anything else as it is (a Unix socket has no address)', () => {
    expect(clientOf('')).toBe('');
    expect(clientOf('not an address')).toBe('not an address');
  });
});
