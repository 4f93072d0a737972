import type { SessionUser } from '../session/dashboard-auth';

/** Why a sign-in did not happen. */
export type SignInRefusal = 'invalid_credentials' | 'locked' | 'email_not_confirmed' | 'second_factor_required' | 'second_factor_invalid';

export type SignInResult =
  | { user: Pick<SessionUser, 'id' | 'merchantId' | 'sessionEpoch'> }
  | { refused: SignInRefusal; userId?: string };

/** What the sign-in pages ask of the accounts (apps/gateway/src/accounts). */
export interface SignInAccounts {
  signUp(input: { email: string; password: string; businessName: string; language: string }): Promise<{ testKey: { token: string } }>;
  confirmEmail(token: string): Promise<unknown>;
  resendConfirmation(email: string): Promise<void>;
  /** The user, or why not; a user with two-step sign-in on gets `second_factor_required` and their id. */
  login(email: string, password: string): Promise<SignInResult>;
  /** The second step for a user whose password was right a moment ago (a TOTP code or an unused recovery code). */
  secondFactor(userId: string, code: string): Promise<SignInResult>;
  unlock(token: string): Promise<unknown>;
  requestPasswordReset(email: string): Promise<void>;
  resetPassword(token: string, password: string): Promise<unknown>;
  logoutEverywhere(userId: string): Promise<void>;
}

/** Injection token of the SignInAccounts (the accounts module's service). */
export const SIGN_IN_ACCOUNTS = Symbol('SIGN_IN_ACCOUNTS');
