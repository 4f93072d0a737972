import { environmentOfSession, liveSignIns, signedInWallet, WALLET_ABSOLUTE_LIFETIME_MS, type WalletSession } from './wallet-session';

describe('wallet sessions', () => {
  const at = 1_000_000_000;
  const session: WalletSession = { csrfSecret: 's', wallets: { test: { walletId: 'wal_test_x', email: 'a@b.co', signedInAt: at } } };

  it('hold a sign-in per environment for an hour however active', () => {
    expect(signedInWallet(session, 'test', at + WALLET_ABSOLUTE_LIFETIME_MS - 1)?.walletId).toBe('wal_test_x');
    expect(signedInWallet(session, 'test', at + WALLET_ABSOLUTE_LIFETIME_MS)).toBeNull();
    expect(signedInWallet(session, 'live', at)).toBeNull();
    expect(signedInWallet(null, 'test', at)).toBeNull();
  });

  it('carry over only the sign-ins still within their hour', () => {
    expect(liveSignIns(session, at + 1)).toEqual(session.wallets);
    expect(liveSignIns(session, at + WALLET_ABSOLUTE_LIFETIME_MS)).toEqual({});
  });

  it('know the environment of a checkout session id', () => {
    expect(environmentOfSession('pi_test_abc')).toBe('test');
    expect(environmentOfSession('inv_test_abc')).toBe('test');
    expect(environmentOfSession('pi_live_abc')).toBe('live');
    expect(environmentOfSession('inv_abc')).toBe('live');
    expect(environmentOfSession('../wallet')).toBeNull();
  });
});
