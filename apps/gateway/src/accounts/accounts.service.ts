import { postgresErrorCode } from '@payments/database';
import { randomBase62 } from '@payments/ids';
import type { EntityManager } from 'typeorm';
import { MerchantAccountError } from '../merchants/merchant-account.error';
import type { CreatedApiKey, MerchantAccounts } from '../merchants/merchant-accounts.service';
import type { MerchantEntity } from '../merchants/merchant.entity';
import type { VerificationStatus } from '../merchants/verification-status';
import { accountLink, accountMail, mailLanguageOf, type AccountMailKind } from './account-mails';
import { hashToken, newToken, tokenExpiry, tokenState, type TokenPurpose } from './account-tokens';
import { AccountError } from './account.error';
import type { AccountsRepository } from './accounts.repository';
import { failureOutcome } from './lockout';
import type { Mailer } from './mailer';
import { PasswordHasher } from './password-hasher';
import { passwordProblem } from './password-policy';
import { hashRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes';
import { can, isRole, type Role } from './roles';
import { totpCodeOf, type TotpSecrets } from './totp';
import type { UserEntity } from './user.entity';
import type { UserTokenEntity } from './user-token.entity';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NAME_MAX_LENGTH = 200;

export interface Clock {
  now(): Date;
}

export interface AccountsOptions {
  /** Sign-up creates the merchant (and its test key) through the same service the admin CLI uses. */
  merchants: MerchantAccounts;
  mailer: Mailer;
  /** PUBLIC_BASE_URL: the mailed links point under `${publicBaseUrl}/dashboard/...`. */
  publicBaseUrl: string;
  totp: TotpSecrets;
  hasher?: PasswordHasher;
  clock?: Clock;
}

/** A user who proved who they are: what a new session stores. */
export interface SignedInUser {
  id: string;
  merchantId: string;
  email: string;
  role: Role;
  sessionEpoch: number;
}

export type LoginRefusal = 'invalid_credentials' | 'locked' | 'email_not_confirmed' | 'second_factor_required' | 'second_factor_invalid';

/** A sign-in's answer; `userId` comes only with second_factor_required (for the second step, `secondFactor`). */
export type LoginResult = { user: SignedInUser } | { refused: LoginRefusal; userId?: string };

/** A user as each dashboard page needs them, with their merchant: one call per page. */
export interface SessionUser {
  id: string;
  email: string;
  role: Role;
  merchantId: string;
  sessionEpoch: number;
  totpEnabled: boolean;
  merchant: { id: string; name: string; verificationStatus: VerificationStatus; rejectionReason: string | null };
}

export interface SignUpResult {
  user: SignedInUser;
  merchant: MerchantEntity;
  /** The merchant's first test key: the whole token exists only here (the page shows it once). */
  testKey: CreatedApiKey;
}

export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  emailConfirmed: boolean;
  totpEnabled: boolean;
  locked: boolean;
  createdAt: Date;
  lastLoginAt: Date | null;
}

/** An invitation not yet accepted (its token is never shown again). */
export interface Invitation {
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** An open invitation as its link's page shows it. */
export interface InvitationOffer {
  email: string;
  role: Role;
  merchantName: string;
  expiresAt: Date;
}

/** Links a user may ask for by address per kind and day (reset, new confirmation); see mailLinkAsked. */
export const ASKED_LINKS_PER_DAY = 5;

export function newUserId(): string {
  return `usr_${randomBase62(24)}`;
}

/**
 * The people of a merchant: sign-up, e-mail confirmation, sign-in with lock-out and an optional second factor,
 * password reset, "log out everywhere" (session epochs), TOTP with recovery codes, and the team with its roles.
 * No HTTP here: the dashboard's pages call these and show the AccountError reasons.
 */
export class Accounts {
  private readonly merchants: MerchantAccounts;
  private readonly mailer: Mailer;
  private readonly baseUrl: string;
  private readonly totp: TotpSecrets;
  private readonly hasher: PasswordHasher;
  private readonly clock: Clock;

  constructor(
    private readonly repository: AccountsRepository,
    options: AccountsOptions,
  ) {
    this.merchants = options.merchants;
    this.mailer = options.mailer;
    this.baseUrl = options.publicBaseUrl;
    this.totp = options.totp;
    this.hasher = options.hasher ?? new PasswordHasher();
    this.clock = options.clock ?? { now: () => new Date() };
  }

  /**
   * A new merchant (unverified, with a test key at once) and its owner (unconfirmed), and the confirmation mail.
   * An address already in use is refused with email_taken: sign-up cannot help revealing that; sign-in and
   * password reset reveal nothing.
   */
  async signUp(input: { email: string; password: string; businessName: string; language?: string }): Promise<SignUpResult> {
    const email = checkEmail(input.email);
    checkPassword(input.password, email);
    const businessName = (input.businessName ?? '').trim();
    if (businessName.length === 0 || businessName.length > NAME_MAX_LENGTH) {
      throw new AccountError('invalid', `business name must be 1 to ${NAME_MAX_LENGTH} characters`, 'businessName');
    }
    if (await this.repository.findUserByEmail(email)) throw emailTaken(email);
    const passwordHash = await this.hasher.hash(input.password);
    const language = mailLanguageOf(input.language);
    try {
      return await this.repository.transaction(async (manager) => {
        const created = await this.merchants.createMerchant({ name: businessName, email }, manager);
        const user = await this.repository.insertUser(
          { id: newUserId(), merchantId: created.merchant.id, email, passwordHash, role: 'owner', language, emailConfirmedAt: null },
          manager,
        );
        await this.mailLink('confirm_email', user, manager);
        return { user: signedIn(user), merchant: created.merchant, testKey: created.testKey };
      });
    } catch (error) {
      // The address is a merchant's already (one created by an operator), or a sign-up raced this one.
      if ((error instanceof MerchantAccountError && error.reason === 'conflict') || postgresErrorCode(error) === '23505') throw emailTaken(email);
      throw error;
    }
  }

  async confirmEmail(token: string): Promise<SignedInUser> {
    const used = await this.useToken(token, 'confirm_email');
    const user = await this.userOf(used);
    if (!user.emailConfirmedAt) await this.repository.updateUser(user.id, { emailConfirmedAt: this.clock.now() });
    return signedIn(user);
  }

  /** A new confirmation link for an unconfirmed address; nothing (and the same answer) otherwise. */
  async resendConfirmation(email: string): Promise<void> {
    const user = await this.repository.findUserByEmail(email);
    if (user && !user.emailConfirmedAt) await this.repository.transaction((manager) => this.mailLinkAsked('confirm_email', user, manager));
  }

  /**
   * Password, then (when on) a second factor: a TOTP code or an unused recovery code. Unknown address and wrong
   * password get one answer in the same time (an argon2 verify either way). Ten consecutive failures lock the user
   * and mail an unlock link once; a locked user is refused before the password is tried.
   */
  async login(email: string, password: string, secondFactor?: string): Promise<LoginResult> {
    const user = await this.repository.findUserByEmail(email);
    if (!user) {
      await this.hasher.verifyNothing(password);
      return { refused: 'invalid_credentials' };
    }
    if (user.lockedAt) return { refused: 'locked' };
    if (!(await this.hasher.verify(user.passwordHash, password))) return this.failed(user, 'invalid_credentials');
    if (!user.emailConfirmedAt) return { refused: 'email_not_confirmed' };
    if (user.totpEnabledAt) {
      if (secondFactor === undefined || secondFactor.trim() === '') return { refused: 'second_factor_required', userId: user.id };
      return this.checkSecondFactor(user, secondFactor);
    }
    return this.succeeded(user);
  }

  /**
   * The second step for a user whose password was right a moment ago (the caller keeps that userId for a few
   * minutes only). Wrong codes count toward the lock-out like wrong passwords.
   */
  async secondFactor(userId: string, code: string): Promise<LoginResult> {
    const user = await this.repository.findUser(userId);
    if (!user || !user.totpEnabledAt) return { refused: 'invalid_credentials' };
    if (user.lockedAt) return { refused: 'locked' };
    return this.checkSecondFactor(user, code);
  }

  async unlock(token: string): Promise<SignedInUser> {
    const user = await this.userOf(await this.useToken(token, 'unlock'));
    await this.repository.updateUser(user.id, { failedLogins: 0, lockedAt: null });
    return signedIn(user);
  }

  /** Mails a reset link when the address has a user; the same answer either way. */
  async requestPasswordReset(email: string): Promise<void> {
    const user = await this.repository.findUserByEmail(email);
    if (user) await this.repository.transaction((manager) => this.mailLinkAsked('password_reset', user, manager));
  }

  /**
   * A link someone asked for by typing an address (a reset, a new confirmation): at most one a minute and
   * ASKED_LINKS_PER_DAY a day per user and kind, so the forms cannot be used to flood an inbox. Past that nothing is
   * sent, with the same answer. The user's row is locked first, so concurrent asks count one after another.
   */
  private async mailLinkAsked(kind: 'confirm_email' | 'password_reset', user: UserEntity, manager: EntityManager): Promise<void> {
    const now = this.clock.now();
    const sent = await this.repository.linksSentSince(user.id, kind, new Date(now.getTime() - 86_400_000), manager);
    const lastMinute = sent.filter((at) => now.getTime() - at.getTime() < 60_000).length;
    if (lastMinute > 0 || sent.length >= ASKED_LINKS_PER_DAY) return;
    await this.mailLink(kind, user, manager);
  }

  /**
   * A new password from a mailed link: ends every session (epoch), unlocks, ends the other reset links, and counts
   * as confirming the address (the link arrived there).
   */
  async resetPassword(token: string, newPassword: string): Promise<SignedInUser> {
    const found = await this.repository.findToken(hashToken(token));
    const owner = found?.userId ? await this.repository.findUser(found.userId) : null;
    if (owner) checkPassword(newPassword, owner.email);
    const passwordHash = await this.hasher.hash(newPassword);
    return this.repository.transaction(async (manager) => {
      const used = await this.useToken(token, 'password_reset', manager);
      const user = await this.userOf(used, manager);
      const now = this.clock.now();
      await this.repository.updateUser(
        user.id,
        { passwordHash, failedLogins: 0, lockedAt: null, ...(user.emailConfirmedAt ? {} : { emailConfirmedAt: now }) },
        manager,
      );
      await this.repository.useAllTokens(user.id, 'password_reset', now, manager);
      const sessionEpoch = (await this.repository.bumpSessionEpoch(user.id, manager))!;
      return { ...signedIn(user), sessionEpoch };
    });
  }

  /** Ends every session of the user; the new epoch (a session started now carries it). */
  async logoutEverywhere(userId: string): Promise<number> {
    const epoch = await this.repository.bumpSessionEpoch(userId);
    if (epoch === null) throw new AccountError('not_found', `no user ${userId}`);
    return epoch;
  }

  /** Whether a session that started in `epoch` still stands (false for a removed user). */
  async sessionValid(userId: string, epoch: number): Promise<boolean> {
    const user = await this.repository.findUser(userId);
    return user !== null && user.sessionEpoch === epoch;
  }

  /** The user with their merchant, for the session check of each page; null when removed. */
  async findForSession(userId: string): Promise<SessionUser | null> {
    const row = await this.repository.findSessionUser(userId);
    if (!row) return null;
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      merchantId: row.merchant_id,
      sessionEpoch: row.session_epoch,
      totpEnabled: row.totp_enabled,
      merchant: { id: row.merchant_id, name: row.merchant_name, verificationStatus: row.verification_status, rejectionReason: row.rejection_reason },
    };
  }

  /** Starts TOTP set-up: a new secret and its otpauth:// URI (for a QR code). Shown now only; stored encrypted. */
  async beginTotp(userId: string): Promise<{ secret: string; uri: string }> {
    const user = await this.requireUser(userId);
    if (user.totpEnabledAt) throw new AccountError('totp_already_enabled', 'two-step sign-in is already on; turn it off first');
    const created = this.totp.create(user.email);
    await this.repository.updateUser(user.id, { totpSecret: created.encrypted, totpLastStep: null });
    return { secret: created.secret, uri: created.uri };
  }

  /** Turns TOTP on with a code from the app; the 10 recovery codes, shown only now (stored as hashes). */
  async enableTotp(userId: string, code: string): Promise<string[]> {
    const user = await this.requireUser(userId);
    if (user.totpEnabledAt) throw new AccountError('totp_already_enabled', 'two-step sign-in is already on');
    if (!user.totpSecret) throw new AccountError('totp_not_started', 'start two-step sign-in set-up first');
    const typed = totpCodeOf(code);
    const step = typed === null ? null : await this.totp.verify(user.totpSecret, typed, this.clock.now(), null);
    if (step === null) throw new AccountError('invalid_code', 'that code is not the current one; check the time on your phone', 'code');
    const codes = newRecoveryCodes();
    await this.repository.transaction(async (manager) => {
      await this.repository.updateUser(user.id, { totpEnabledAt: this.clock.now(), totpLastStep: step }, manager);
      await this.repository.replaceRecoveryCodes(user.id, codes.map((c) => hashRecoveryCode(normalizeRecoveryCode(c)!)), manager);
    });
    return codes;
  }

  /** Turns TOTP off (the password again, as for any change that weakens sign-in); the recovery codes go. */
  async disableTotp(userId: string, password: string): Promise<void> {
    const user = await this.requireUser(userId);
    await this.requirePasswordAgain(user, password);
    await this.repository.transaction(async (manager) => {
      await this.repository.updateUser(user.id, { totpSecret: null, totpEnabledAt: null, totpLastStep: null }, manager);
      await this.repository.replaceRecoveryCodes(user.id, [], manager);
    });
  }

  /**
   * Ten new recovery codes in place of those left (used up, or seen by someone else), shown only now: the password
   * again, as for turning TOTP off. The earlier codes stop working in the same transaction.
   */
  async renewRecoveryCodes(userId: string, password: string): Promise<string[]> {
    const user = await this.requireUser(userId);
    if (!user.totpEnabledAt) throw new AccountError('totp_not_enabled', 'two-step sign-in is off: there are no recovery codes to renew');
    await this.requirePasswordAgain(user, password);
    const codes = newRecoveryCodes();
    await this.repository.transaction((manager) => this.repository.replaceRecoveryCodes(user.id, codes.map((c) => hashRecoveryCode(normalizeRecoveryCode(c)!)), manager));
    return codes;
  }

  /** How many recovery codes the user has left. */
  unusedRecoveryCodes(userId: string): Promise<number> {
    return this.repository.unusedRecoveryCodes(userId);
  }

  /** An owner invites an address with a role; inviting it again replaces the earlier link. */
  async invite(merchantId: string, byUserId: string, email: string, role: string): Promise<Invitation> {
    const inviter = await this.requireMember(merchantId, byUserId);
    if (!can(inviter.role, 'manage_team')) throw new AccountError('forbidden', 'only an owner can invite');
    const address = checkEmail(email);
    if (!isRole(role)) throw new AccountError('invalid', 'role must be owner, developer or viewer', 'role');
    if (await this.repository.findUserByEmail(address)) throw emailTaken(address);
    const merchant = await this.merchants.getMerchant(merchantId);
    const token = newToken();
    const now = this.clock.now();
    const expiresAt = tokenExpiry('invitation', now);
    await this.repository.transaction(async (manager) => {
      await this.repository.cancelInvitations(merchantId, address, now, manager);
      await this.repository.insertToken(
        { tokenHash: hashToken(token), purpose: 'invitation', userId: null, merchantId, email: address, role, invitedBy: inviter.id, expiresAt },
        manager,
      );
      const link = accountLink(this.baseUrl, 'invitation', token);
      await this.mailer.enqueue(accountMail('invitation', inviter.language, address, link, { inviter: inviter.email, merchant: merchant.name, role }), manager);
    });
    return { email: address, role, invitedBy: inviter.id, createdAt: now, expiresAt };
  }

  /**
   * What an invitation link is for, read without using it (the accept page shows it before the password is chosen):
   * an unknown, used or other-purpose link is invalid_token, an old one token_expired.
   */
  async invitationFor(token: string): Promise<InvitationOffer> {
    const found = await this.repository.findToken(hashToken(typeof token === 'string' ? token : ''));
    if (!found || found.purpose !== 'invitation' || !found.merchantId || !found.email || !found.role) {
      throw new AccountError('invalid_token', 'this link is not valid (it may have been used already)');
    }
    const state = tokenState(found, this.clock.now());
    if (state === 'expired') throw new AccountError('token_expired', 'this link has expired; ask for a new one');
    if (state === 'used') throw new AccountError('invalid_token', 'this link is not valid (it may have been used already)');
    const merchant = await this.merchants.getMerchant(found.merchantId);
    return { email: found.email, role: found.role, merchantName: merchant.name, expiresAt: found.expiresAt };
  }

  /** The invited person chooses a password; the address counts as confirmed (the link arrived there). */
  async acceptInvitation(token: string, password: string, language?: string): Promise<SignedInUser> {
    const found = await this.repository.findToken(hashToken(token));
    if (found?.purpose === 'invitation' && found.email) checkPassword(password, found.email);
    const passwordHash = await this.hasher.hash(password);
    try {
      return await this.repository.transaction(async (manager) => {
        const used = await this.useToken(token, 'invitation', manager);
        const user = await this.repository.insertUser(
          {
            id: newUserId(),
            merchantId: used.merchantId!,
            email: used.email!,
            passwordHash,
            role: used.role!,
            language: mailLanguageOf(language),
            emailConfirmedAt: this.clock.now(),
          },
          manager,
        );
        return signedIn(user);
      });
    } catch (error) {
      if (postgresErrorCode(error) === '23505') throw emailTaken(found?.email ?? '');
      throw error;
    }
  }

  async listUsers(merchantId: string): Promise<TeamMember[]> {
    return (await this.repository.listUsers(merchantId)).map(teamMember);
  }

  async listInvitations(merchantId: string): Promise<Invitation[]> {
    return (await this.repository.listOpenInvitations(merchantId, this.clock.now())).map((t) => ({
      email: t.email!,
      role: t.role!,
      invitedBy: t.invitedBy,
      createdAt: t.createdAt,
      expiresAt: t.expiresAt,
    }));
  }

  async cancelInvitation(merchantId: string, byUserId: string, email: string): Promise<void> {
    const owner = await this.requireMember(merchantId, byUserId);
    if (!can(owner.role, 'manage_team')) throw new AccountError('forbidden', 'only an owner can cancel an invitation');
    if ((await this.repository.cancelInvitations(merchantId, email.trim(), this.clock.now())) === 0) {
      throw new AccountError('not_found', `no open invitation for ${email}`);
    }
  }

  /** An owner changes a member's role; the merchant's last owner cannot be demoted. */
  async changeRole(merchantId: string, byUserId: string, userId: string, role: string): Promise<TeamMember> {
    if (!isRole(role)) throw new AccountError('invalid', 'role must be owner, developer or viewer', 'role');
    return this.asOwner(merchantId, byUserId, async (owners, manager) => {
      const target = await this.memberIn(merchantId, userId, manager);
      if (target.role === 'owner' && role !== 'owner' && owners.length <= 1) throw lastOwner();
      await this.repository.updateUser(target.id, { role }, manager);
      return teamMember({ ...target, role });
    });
  }

  /** An owner removes a member (their sessions end: the user is gone); the last owner cannot be removed. */
  async removeUser(merchantId: string, byUserId: string, userId: string): Promise<void> {
    await this.asOwner(merchantId, byUserId, async (owners, manager) => {
      const target = await this.memberIn(merchantId, userId, manager);
      if (target.role === 'owner' && owners.length <= 1) throw lastOwner();
      await this.repository.deleteUser(target.id, manager);
    });
  }

  // Under a lock on the merchant's owners: the acting user must still be one of them when the change is made.
  private asOwner<T>(merchantId: string, byUserId: string, work: (owners: string[], manager: EntityManager) => Promise<T>): Promise<T> {
    return this.repository.transaction(async (manager) => {
      const owners = await this.repository.lockOwners(merchantId, manager);
      if (!owners.includes(byUserId)) throw new AccountError('forbidden', 'only an owner can change the team');
      return work(owners, manager);
    });
  }

  private async memberIn(merchantId: string, userId: string, manager?: EntityManager): Promise<UserEntity> {
    const user = await this.repository.findUser(userId, manager);
    // Another merchant's user is "not found": ids of other merchants reveal nothing.
    if (!user || user.merchantId !== merchantId) throw new AccountError('not_found', `no user ${userId}`);
    return user;
  }

  private requireMember(merchantId: string, userId: string): Promise<UserEntity> {
    return this.memberIn(merchantId, userId);
  }

  private async requireUser(userId: string): Promise<UserEntity> {
    const user = await this.repository.findUser(userId);
    if (!user) throw new AccountError('not_found', `no user ${userId}`);
    return user;
  }

  private async checkSecondFactor(user: UserEntity, typed: string): Promise<LoginResult> {
    const now = this.clock.now();
    const code = totpCodeOf(typed);
    if (code !== null) {
      const step = await this.totp.verify(user.totpSecret!, code, now, user.totpLastStep);
      // The step is claimed in the UPDATE: the same code sent twice at once signs in once.
      if (step !== null && (await this.repository.claimTotpStep(user.id, step))) return this.succeeded(user);
    } else {
      const recovery = normalizeRecoveryCode(typed);
      if (recovery !== null && (await this.repository.useRecoveryCode(user.id, hashRecoveryCode(recovery), now))) return this.succeeded(user);
    }
    return this.failed(user, 'second_factor_invalid');
  }

  private async succeeded(user: UserEntity): Promise<LoginResult> {
    await this.repository.recordLogin(user.id, this.clock.now());
    return { user: signedIn(user) };
  }

  /**
   * The password asked again before a change that weakens sign-in. Wrong ones count toward the lock-out as
   * sign-in's do, so a session taken over is no way to guess it; a locked user is refused before it is tried.
   */
  private async requirePasswordAgain(user: UserEntity, password: string): Promise<void> {
    const locked = () => new AccountError('locked', 'too many wrong passwords: locked until the e-mailed link unlocks it', 'password');
    if (user.lockedAt) throw locked();
    if (await this.hasher.verify(user.passwordHash, password)) return;
    const outcome = await this.failed(user, 'invalid_credentials');
    if ('refused' in outcome && outcome.refused === 'locked') throw locked();
    throw new AccountError('invalid_credentials', 'wrong password', 'password');
  }

  private async failed(user: UserEntity, refusal: 'invalid_credentials' | 'second_factor_invalid'): Promise<LoginResult> {
    const count = await this.repository.recordFailedLogin(user.id, this.clock.now());
    const outcome = failureOutcome(count ?? 0);
    if (outcome === 'counted') return { refused: refusal };
    if (outcome === 'locked_now') await this.repository.transaction((manager) => this.mailLink('unlock', user, manager));
    return { refused: 'locked' };
  }

  /** A new link token for the user, and its mail, in the caller's transaction. */
  private async mailLink(kind: Exclude<AccountMailKind, 'invitation'>, user: UserEntity, manager: EntityManager): Promise<void> {
    const token = newToken();
    await this.repository.insertToken(
      {
        tokenHash: hashToken(token),
        purpose: kind,
        userId: user.id,
        merchantId: null,
        email: null,
        role: null,
        invitedBy: null,
        expiresAt: tokenExpiry(kind, this.clock.now()),
      },
      manager,
    );
    await this.mailer.enqueue(accountMail(kind, user.language, user.email, accountLink(this.baseUrl, kind, token)), manager);
  }

  /** Uses a link once; an unknown, used or other-purpose token is invalid_token, an old one token_expired. */
  private async useToken(token: string, purpose: TokenPurpose, manager?: EntityManager): Promise<UserTokenEntity> {
    const hash = hashToken(typeof token === 'string' ? token : '');
    const now = this.clock.now();
    const used = await this.repository.useToken(hash, purpose, now, manager);
    if (used) return used;
    const found = await this.repository.findToken(hash, manager);
    if (found && found.purpose === purpose && tokenState(found, now) === 'expired') {
      throw new AccountError('token_expired', 'this link has expired; ask for a new one');
    }
    throw new AccountError('invalid_token', 'this link is not valid (it may have been used already)');
  }

  private async userOf(token: UserTokenEntity, manager?: EntityManager): Promise<UserEntity> {
    const user = token.userId ? await this.repository.findUser(token.userId, manager) : null;
    if (!user) throw new AccountError('invalid_token', 'this link is not valid');
    return user;
  }
}

function checkEmail(input: string): string {
  const email = typeof input === 'string' ? input.trim() : '';
  if (!EMAIL.test(email) || email.length > 254) throw new AccountError('invalid_email', 'enter an e-mail address such as name@example.com', 'email');
  return email;
}

function checkPassword(password: string, email: string): void {
  const problem = typeof password === 'string' ? passwordProblem(password, email) : 'too_short';
  if (problem) {
    const messages = {
      too_short: 'use at least 10 characters',
      too_long: 'use at most 128 characters',
      same_as_email: 'do not use your e-mail address as the password',
    } as const;
    throw new AccountError('weak_password', messages[problem], 'password', problem);
  }
}

function emailTaken(email: string): AccountError {
  return new AccountError('email_taken', `an account with ${email} already exists; sign in or reset the password`, 'email');
}

function lastOwner(): AccountError {
  return new AccountError('last_owner', 'a merchant needs an owner: make someone else owner first');
}

function signedIn(user: UserEntity): SignedInUser {
  return { id: user.id, merchantId: user.merchantId, email: user.email, role: user.role, sessionEpoch: user.sessionEpoch };
}

function teamMember(user: UserEntity): TeamMember {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    emailConfirmed: user.emailConfirmedAt !== null,
    totpEnabled: user.totpEnabledAt !== null,
    locked: user.lockedAt !== null,
    createdAt: user.createdAt,
    lastLoginAt: user.lastLoginAt,
  };
}

