// A browser's wallet sign-in as kept server-side (Redis; the cookie holds only a random id). One session may hold
// a live and a test wallet (the checkout of each environment signs into its own); each ends an hour after its
// sign-in however active, and the whole session after 15 minutes without a request.
export type WalletEnvironment = 'live' | 'test';

export interface SignedInWallet {
  walletId: string;
  email: string;
  /** ms since epoch. */
  signedInAt: number;
}

export interface WalletSession {
  /** Secret of this session's form tokens (a new one at every sign-in). */
  csrfSecret: string;
  wallets: Partial<Record<WalletEnvironment, SignedInWallet>>;
}

export const WALLET_IDLE_LIFETIME_MS = 15 * 60_000;
export const WALLET_ABSOLUTE_LIFETIME_MS = 60 * 60_000;

/** The wallet signed in for `environment`, unless its hour is over. */
export function signedInWallet(session: WalletSession | null, environment: WalletEnvironment, now: number): SignedInWallet | null {
  const wallet = session?.wallets[environment];
  if (!wallet) return null;
  return now - wallet.signedInAt < WALLET_ABSOLUTE_LIFETIME_MS && now >= wallet.signedInAt ? wallet : null;
}

/** The session's sign-ins still within their hour (what a new sign-in carries over). */
export function liveSignIns(session: WalletSession | null, now: number): WalletSession['wallets'] {
  const kept: WalletSession['wallets'] = {};
  for (const environment of ['live', 'test'] as const) {
    const wallet = signedInWallet(session, environment, now);
    if (wallet) kept[environment] = wallet;
  }
  return kept;
}

/** The environment of a checkout session's id (`pi_test_…`, `inv_test_…` are test), or null for another string. */
export function environmentOfSession(id: string): WalletEnvironment | null {
  if (!/^(pi_(live|test)_|inv_(test_)?)[A-Za-z0-9]{1,64}$/.test(id)) return null;
  return id.startsWith('pi_test_') || id.startsWith('inv_test_') ? 'test' : 'live';
}
