import type { Mailer } from '../accounts/mailer';
import { codeExpiry, codeState, mayIssueCode, newSignInCode, normaliseCode, normaliseEmail, rateWindowStart, MAX_FAILED_ATTEMPTS } from './domain/sign-in-codes';
import type { WalletEnvironment } from './domain/wallet-session';
import { walletCodeMail, type WalletMailLanguage } from './wallet-code.mail';
import type { CustomerWallet, WalletsRepository } from './wallets.repository';

/** Codes are hashed like passwords (argon2id): a stolen table gives nothing faster than guessing at the form. */
export interface CodeHasher {
  hash(code: string): Promise<string>;
  verify(hash: string, code: string): Promise<boolean>;
}

export type CodeRefusal = 'invalid_email' | 'invalid_code' | 'expired' | 'too_many_attempts';

export type SignInResult = { ok: true; wallet: CustomerWallet } | { ok: false; reason: CodeRefusal };

/**
 * Signing a customer into their wallet with an e-mailed code: asking for a code (limited per address, the same answer
 * past the limit or for any address) and using it (once, within 10 minutes, five wrong tries at most). The wallet is
 * made at the first sign-in.
 */
export class WalletSignIn {
  constructor(
    private readonly repository: WalletsRepository,
    private readonly hasher: CodeHasher,
    private readonly mailer: Mailer,
    private readonly clock: { now(): Date } = { now: () => new Date() },
  ) {}

  /** Mails a new code unless the address had one within the minute or ten today; answers the normalised address. */
  async requestCode(environment: WalletEnvironment, emailInput: unknown, language: WalletMailLanguage): Promise<{ ok: true; email: string } | { ok: false; reason: 'invalid_email' }> {
    const email = normaliseEmail(emailInput);
    if (!email) return { ok: false, reason: 'invalid_email' };
    const code = newSignInCode();
    const codeHash = await this.hasher.hash(code);
    await this.repository.transaction(async (manager) => {
      await this.repository.lockAddress(environment, email, manager);
      const now = this.clock.now();
      const sent = await this.repository.codesSentSince(environment, email, rateWindowStart(now), manager);
      if (!mayIssueCode(sent, now)) return;
      await this.repository.issueCode(environment, email, codeHash, now, codeExpiry(now), manager);
      // In the same transaction: the mail exists exactly when its code does.
      await this.mailer.enqueue(walletCodeMail(email, code, environment, language), manager);
    });
    return { ok: true, email };
  }

  /** Uses the address's last code: its wallet (made now on a first sign-in), or why not. */
  async verifyCode(environment: WalletEnvironment, emailInput: unknown, codeInput: unknown): Promise<SignInResult> {
    const email = normaliseEmail(emailInput);
    if (!email) return { ok: false, reason: 'invalid_email' };
    const code = normaliseCode(codeInput);
    return this.repository.transaction(async (manager) => {
      await this.repository.lockAddress(environment, email, manager);
      const open = await this.repository.openCode(environment, email, manager);
      if (!open) return { ok: false, reason: 'invalid_code' } as const;
      const state = codeState(open, this.clock.now());
      if (state === 'expired') return { ok: false, reason: 'expired' } as const;
      if (state !== 'usable') return { ok: false, reason: 'too_many_attempts' } as const;
      if (code === null || !(await this.hasher.verify(open.codeHash, code))) {
        const failed = await this.repository.countFailedTry(open.id, manager);
        return { ok: false, reason: failed >= MAX_FAILED_ATTEMPTS ? 'too_many_attempts' : 'invalid_code' } as const;
      }
      await this.repository.useCode(open.id, this.clock.now(), manager);
      return { ok: true, wallet: await this.repository.getOrCreate(environment, email, manager) } as const;
    });
  }
}
