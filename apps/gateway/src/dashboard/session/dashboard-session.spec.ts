import { ABSOLUTE_LIFETIME_MS, sessionUsable, type DashboardSession } from './dashboard-session';

describe('sessionUsable', () => {
  const session: DashboardSession = { userId: 'usr_1', merchantId: 'acct_1', epoch: 3, csrfSecret: 's', signedInAt: 1_000_000 };
  it('holds while the epoch is the user\'s current one and the absolute lifetime has not passed', () => {
    expect(sessionUsable(session, 3, 1_000_000 + ABSOLUTE_LIFETIME_MS - 1)).toBe(true);
  });
  it('ends when the epoch moved on (log out everywhere, password reset)', () => {
    expect(sessionUsable(session, 4, 1_000_001)).toBe(false);
  });
  it('ends after the absolute lifetime however active', () => {
    expect(sessionUsable(session, 3, 1_000_000 + ABSOLUTE_LIFETIME_MS)).toBe(false);
  });
});
