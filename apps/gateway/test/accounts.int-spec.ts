import { loadConfig } from '@payments/config';
import { PG_SESSION_OPTIONS } from '@payments/database';
import { dataSourceOptions, runMigrationsLocked } from '@payments/platform';
import { createTestDatabase, TestDatabase } from '@payments/testing';
import { generate } from 'otplib';
import { DataSource } from 'typeorm';
import { AccountError } from '../src/accounts/account.error';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { Accounts } from '../src/accounts/accounts.service';
import type { Mailer, OutgoingMail } from '../src/accounts/mailer';
import { PasswordHasher } from '../src/accounts/password-hasher';
import { TotpSecrets } from '../src/accounts/totp';
import { GatewayConfig, GATEWAY_DEFAULTS } from '../src/config';
import { MailRecipients } from '../src/mail/mail-recipients';
import { MerchantAccounts } from '../src/merchants/merchant-accounts.service';
import { MerchantsRepository } from '../src/merchants/merchants.repository';
import { GATEWAY_ENTITIES, GATEWAY_MIGRATIONS } from '../src/migrations/gateway-schema';

/** Records what would go to the mail outbox, and only once the caller's transaction committed. */
class RecordingMailer implements Mailer {
  readonly sent: OutgoingMail[] = [];

  async enqueue(mail: OutgoingMail, manager?: { queryRunner?: { isTransactionActive?: boolean; connection: DataSource } }): Promise<void> {
    const runner = (manager as { queryRunner?: { isTransactionActive: boolean } } | undefined)?.queryRunner;
    // Every account mail is written in the transaction of the token it carries.
    expect(runner?.isTransactionActive).toBe(true);
    this.sent.push(mail);
  }

  to(address: string, kind: string): OutgoingMail[] {
    return this.sent.filter((m) => m.to.toLowerCase() === address.toLowerCase() && m.kind === kind);
  }

  /** The token of the last link of `kind` mailed to `address`. */
  token(address: string, kind: string): string {
    const mail = this.to(address, kind).at(-1);
    if (!mail) throw new Error(`no ${kind} mail to ${address}`);
    const match = /\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
    return match![1] as string;
  }
}

const PASSWORD = 'correct horse battery';

// The accounts' flows against real Postgres (the gateway's schema and migrations) with real argon2 and TOTP.
describe('Accounts', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let accounts: Accounts;
  let mailer: RecordingMailer;
  let clock: { now(): Date };
  let nowMs: number;
  const totpSecrets = new TotpSecrets(Buffer.alloc(32, 5), 'Payments dashboard');

  const user = async (email: string) => (await dataSource.query(`SELECT * FROM gateway.users WHERE lower(email) = lower($1)`, [email]))[0];

  /** The accounts under test, on this file's database, mailer and clock (with another hasher when given). */
  const newAccounts = (hasher?: PasswordHasher) =>
    new Accounts(new AccountsRepository(dataSource), {
      merchants: new MerchantAccounts(new MerchantsRepository(dataSource)),
      mailer,
      publicBaseUrl: 'https://pay.example/',
      totp: totpSecrets,
      clock,
      ...(hasher ? { hasher } : {}),
    });

  async function confirmedOwner(email: string): Promise<{ id: string; merchantId: string }> {
    const signedUp = await accounts.signUp({ email, password: PASSWORD, businessName: 'Shop', language: 'en' });
    await accounts.confirmEmail(mailer.token(email, 'confirm_email'));
    return signedUp.user;
  }

  beforeAll(async () => {
    db = await createTestDatabase('gw_accounts');
    const config = loadConfig(GatewayConfig, { DATABASE_URL: db.url }, GATEWAY_DEFAULTS);
    dataSource = new DataSource({
      ...dataSourceOptions(config, { entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS }),
      extra: { max: 12, options: PG_SESSION_OPTIONS },
    });
    await dataSource.initialize();
    await runMigrationsLocked(dataSource, config.DB_SCHEMA);
    mailer = new RecordingMailer();
    nowMs = Date.now();
    clock = { now: () => new Date(nowMs) };
    accounts = newAccounts();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('sign-up -> confirmation mail -> sign-in; the merchant is unverified with a test key at once', async () => {
    const signedUp = await accounts.signUp({ email: 'Owner@Corner.example', password: PASSWORD, businessName: 'Corner Shop', language: 'ar' });
    expect(signedUp.user).toMatchObject({ id: expect.stringMatching(/^usr_[A-Za-z0-9]{24}$/), role: 'owner', sessionEpoch: 0 });
    expect(signedUp.merchant).toMatchObject({ name: 'Corner Shop', verificationStatus: 'unverified' });
    expect(signedUp.testKey.token).toMatch(/^pay_test_/);
    const row = await user('owner@corner.example');
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);

    const [mail] = mailer.to('owner@corner.example', 'confirm_email');
    expect(mail!.text).toContain('https://pay.example/dashboard/confirm?token=');
    expect(mail!.subject).toBe('أكّد عنوان بريدك الإلكتروني');
    // Only the token's hash is stored.
    const token = mailer.token('owner@corner.example', 'confirm_email');
    expect(JSON.stringify(await dataSource.query(`SELECT * FROM gateway.user_tokens`))).not.toContain(token);

    expect(await accounts.login('owner@corner.example', PASSWORD)).toEqual({ refused: 'email_not_confirmed' });
    await accounts.confirmEmail(token);
    await expect(accounts.confirmEmail(token)).rejects.toMatchObject({ reason: 'invalid_token' });
    const result = await accounts.login('OWNER@corner.example', PASSWORD);
    expect(result).toEqual({ user: { ...signedUp.user, email: 'Owner@Corner.example' } });
    expect((await user('owner@corner.example')).last_login_at).not.toBeNull();
    expect(await accounts.findForSession(signedUp.user.id)).toMatchObject({
      role: 'owner',
      merchant: { id: signedUp.merchant.id, name: 'Corner Shop', verificationStatus: 'unverified', rejectionReason: null },
    });
  });

  it('refuses a taken address (any case), a short password and the address as password', async () => {
    await accounts.signUp({ email: 'taken@example.com', password: PASSWORD, businessName: 'Taken' });
    await expect(accounts.signUp({ email: 'TAKEN@example.com', password: PASSWORD, businessName: 'Again' })).rejects.toMatchObject({ reason: 'email_taken', field: 'email' });
    await expect(accounts.signUp({ email: 'new@example.com', password: 'short', businessName: 'S' })).rejects.toMatchObject({ reason: 'weak_password', detail: 'too_short' });
    await expect(accounts.signUp({ email: 'new@example.com', password: 'new@example.com', businessName: 'S' })).rejects.toMatchObject({ detail: 'same_as_email' });
    await expect(accounts.signUp({ email: 'not-an-address', password: PASSWORD, businessName: 'S' })).rejects.toMatchObject({ reason: 'invalid_email' });
    // Five sign-ups racing on one address: one account.
    const racing = await Promise.allSettled(Array.from({ length: 5 }, () => accounts.signUp({ email: 'race@example.com', password: PASSWORD, businessName: 'Race' })));
    expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of racing) if (r.status === 'rejected') expect(r.reason).toMatchObject({ reason: 'email_taken' });
  });

  it('answers an unknown address and a wrong password alike, each after one argon2 verify', async () => {
    // The real hasher, counting what it verifies: the property is that an unknown address spends the same work
    // (one argon2id verify) as a wrong password, not how two paths' wall times compare on a busy machine.
    const verified: string[] = [];
    const hasher = new (class extends PasswordHasher {
      override async verify(hash: string, password: string): Promise<boolean> {
        verified.push(hash);
        return super.verify(hash, password);
      }
    })();
    const counted = newAccounts(hasher);
    await confirmedOwner('timing@example.com');
    await counted.login('nobody@example.com', 'x'.repeat(12)); // the dummy hash is made once
    verified.length = 0;
    const start = performance.now();
    expect(await counted.login('nobody@example.com', 'x'.repeat(12))).toEqual({ refused: 'invalid_credentials' });
    const unknownMs = performance.now() - start;
    expect(verified).toEqual([expect.stringMatching(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/)]);
    verified.length = 0;
    expect(await counted.login('timing@example.com', 'x'.repeat(12))).toEqual({ refused: 'invalid_credentials' });
    expect(verified).toEqual([(await user('timing@example.com')).password_hash]);
    // And the verify really ran: the unknown address took at least half of the fastest of three bare verifies
    // (about 20 ms here; an answer without one comes in well under 5 ms).
    const dummy = await new PasswordHasher().hash('y'.repeat(16));
    let fastest = Infinity;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await new PasswordHasher().verify(dummy, 'x'.repeat(12));
      fastest = Math.min(fastest, performance.now() - t);
    }
    expect(unknownMs).toBeGreaterThan(fastest * 0.5);
  });

  it('locks after 10 wrong passwords, mails one unlock link, and the link unlocks', async () => {
    await confirmedOwner('locked@example.com');
    for (let i = 0; i < 9; i++) expect(await accounts.login('locked@example.com', `wrong password ${i}`)).toEqual({ refused: 'invalid_credentials' });
    expect(await accounts.login('locked@example.com', 'wrong password 9')).toEqual({ refused: 'locked' });
    // Locked: even the right password is refused, and no second mail goes out.
    expect(await accounts.login('locked@example.com', PASSWORD)).toEqual({ refused: 'locked' });
    expect(mailer.to('locked@example.com', 'unlock')).toHaveLength(1);
    expect(mailer.to('locked@example.com', 'unlock')[0]!.text).toContain('https://pay.example/dashboard/unlock?token=');

    await accounts.unlock(mailer.token('locked@example.com', 'unlock'));
    expect(await user('locked@example.com')).toMatchObject({ failed_logins: 0, locked_at: null });
    expect(await accounts.login('locked@example.com', PASSWORD)).toMatchObject({ user: { email: 'locked@example.com' } });
  });

  it('counts concurrent wrong passwords exactly, and mails the unlock link once', async () => {
    await confirmedOwner('concurrent@example.com');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => accounts.login('concurrent@example.com', `wrong password ${i}`)));
    expect(results.every((r) => 'refused' in r && r.refused === 'invalid_credentials')).toBe(true);
    expect(await user('concurrent@example.com')).toMatchObject({ failed_logins: 8, locked_at: null });

    const more = await Promise.all(Array.from({ length: 5 }, (_, i) => accounts.login('concurrent@example.com', `again wrong ${i}`)));
    // Failures 9 to 13: the 9th is counted, the 10th locks, the rest find it locked.
    expect(more.filter((r) => 'refused' in r && r.refused === 'locked')).toHaveLength(4);
    expect((await user('concurrent@example.com')).failed_logins).toBe(13);
    expect((await user('concurrent@example.com')).locked_at).not.toBeNull();
    expect(mailer.to('concurrent@example.com', 'unlock')).toHaveLength(1);
  });

  it('success resets the count of failures', async () => {
    await confirmedOwner('reset-count@example.com');
    for (let i = 0; i < 5; i++) await accounts.login('reset-count@example.com', `wrong password ${i}`);
    await accounts.login('reset-count@example.com', PASSWORD);
    expect((await user('reset-count@example.com')).failed_logins).toBe(0);
  });

  it('password reset: the same answer for unknown addresses; the link sets the password, ends sessions and unlocks', async () => {
    const owner = await confirmedOwner('forgot@example.com');
    await accounts.requestPasswordReset('unknown@example.com');
    expect(mailer.to('unknown@example.com', 'password_reset')).toHaveLength(0);
    await accounts.requestPasswordReset('FORGOT@example.com');
    const token = mailer.token('forgot@example.com', 'password_reset');
    for (let i = 0; i < 10; i++) await accounts.login('forgot@example.com', `wrong password ${i}`);
    expect(await accounts.sessionValid(owner.id, 0)).toBe(true);

    await expect(accounts.resetPassword(token, 'short')).rejects.toMatchObject({ reason: 'weak_password' });
    const reset = await accounts.resetPassword(token, 'a brand new passphrase');
    expect(reset.sessionEpoch).toBe(1);
    expect(await accounts.sessionValid(owner.id, 0)).toBe(false);
    expect(await accounts.sessionValid(owner.id, 1)).toBe(true);
    await expect(accounts.resetPassword(token, 'another new passphrase')).rejects.toMatchObject({ reason: 'invalid_token' });
    expect(await accounts.login('forgot@example.com', PASSWORD)).toEqual({ refused: 'invalid_credentials' });
    expect(await accounts.login('forgot@example.com', 'a brand new passphrase')).toMatchObject({ user: { sessionEpoch: 1 } });
  });

  it('an expired link is told apart from an unknown one', async () => {
    await accounts.signUp({ email: 'slow@example.com', password: PASSWORD, businessName: 'Slow' });
    const token = mailer.token('slow@example.com', 'confirm_email');
    nowMs += 49 * 3600_000;
    try {
      await expect(accounts.confirmEmail(token)).rejects.toMatchObject({ reason: 'token_expired' });
      await expect(accounts.confirmEmail('not-a-token')).rejects.toMatchObject({ reason: 'invalid_token' });
      await accounts.resendConfirmation('slow@example.com');
      await accounts.confirmEmail(mailer.token('slow@example.com', 'confirm_email'));
    } finally {
      nowMs -= 49 * 3600_000;
    }
    expect((await user('slow@example.com')).email_confirmed_at).not.toBeNull();
  });

  it('log out everywhere bumps the epoch', async () => {
    const owner = await confirmedOwner('everywhere@example.com');
    expect(await accounts.logoutEverywhere(owner.id)).toBe(1);
    expect(await accounts.sessionValid(owner.id, 0)).toBe(false);
    expect((await accounts.findForSession(owner.id))!.sessionEpoch).toBe(1);
  });

  it('TOTP: on with a code; sign-in then needs a code, a code works once, a recovery code works once', async () => {
    const owner = await confirmedOwner('totp@example.com');
    const { secret, uri } = await accounts.beginTotp(owner.id);
    expect(uri).toContain('otpauth://totp/');
    expect((await user('totp@example.com')).totp_secret).not.toContain(secret);
    const epoch = () => Math.floor(nowMs / 1000);
    await expect(accounts.enableTotp(owner.id, '000000')).rejects.toMatchObject({ reason: 'invalid_code' });
    const codes = await accounts.enableTotp(owner.id, await generate({ secret, epoch: epoch() }));
    expect(codes).toHaveLength(10);
    expect(JSON.stringify(await dataSource.query(`SELECT * FROM gateway.recovery_codes`))).not.toContain(codes[0]!.slice(0, 4) + codes[0]!.slice(5, 9));

    const required = await accounts.login('totp@example.com', PASSWORD);
    expect(required).toEqual({ refused: 'second_factor_required', userId: owner.id });
    // The code that turned TOTP on cannot sign in (same time step).
    expect(await accounts.login('totp@example.com', PASSWORD, await generate({ secret, epoch: epoch() }))).toEqual({ refused: 'second_factor_invalid' });
    nowMs += 30_000;
    const code = await generate({ secret, epoch: epoch() });
    expect(await accounts.secondFactor(owner.id, code)).toMatchObject({ user: { id: owner.id } });
    expect(await accounts.secondFactor(owner.id, code)).toEqual({ refused: 'second_factor_invalid' });

    const recovery = codes[3]!;
    expect(await accounts.login('totp@example.com', PASSWORD, recovery.toLowerCase())).toMatchObject({ user: { id: owner.id } });
    expect(await accounts.login('totp@example.com', PASSWORD, recovery)).toEqual({ refused: 'second_factor_invalid' });
    expect(await accounts.unusedRecoveryCodes(owner.id)).toBe(9);

    // Renewed with the password: ten new codes, and the ones left stop working.
    await expect(accounts.renewRecoveryCodes(owner.id, 'wrong password!')).rejects.toMatchObject({ reason: 'invalid_credentials' });
    expect(await accounts.unusedRecoveryCodes(owner.id)).toBe(9);
    const renewed = await accounts.renewRecoveryCodes(owner.id, PASSWORD);
    expect(renewed).toHaveLength(10);
    expect(renewed).not.toContain(codes[4]);
    expect(await accounts.unusedRecoveryCodes(owner.id)).toBe(10);
    expect(await accounts.login('totp@example.com', PASSWORD, codes[4]!)).toEqual({ refused: 'second_factor_invalid' });
    expect(await accounts.login('totp@example.com', PASSWORD, renewed[0]!)).toMatchObject({ user: { id: owner.id } });
    expect(await accounts.unusedRecoveryCodes(owner.id)).toBe(9);

    await expect(accounts.disableTotp(owner.id, 'wrong password!')).rejects.toMatchObject({ reason: 'invalid_credentials' });
    await accounts.disableTotp(owner.id, PASSWORD);
    expect(await accounts.login('totp@example.com', PASSWORD)).toMatchObject({ user: { id: owner.id } });
    await expect(accounts.renewRecoveryCodes(owner.id, PASSWORD)).rejects.toMatchObject({ reason: 'totp_not_enabled' });
  });

  it('wrong passwords given to renew recovery codes or turn two-step sign-in off count toward the lock-out', async () => {
    const owner = await confirmedOwner('recheck@example.com');
    const { secret } = await accounts.beginTotp(owner.id);
    await accounts.enableTotp(owner.id, await generate({ secret, epoch: Math.floor(nowMs / 1000) }));
    // A session taken over cannot guess the password on the Security page: nine wrong ones are refused as wrong…
    for (let i = 0; i < 5; i++) await expect(accounts.renewRecoveryCodes(owner.id, `wrong password ${i}`)).rejects.toMatchObject({ reason: 'invalid_credentials' });
    for (let i = 5; i < 9; i++) await expect(accounts.disableTotp(owner.id, `wrong password ${i}`)).rejects.toMatchObject({ reason: 'invalid_credentials' });
    // …the tenth locks the account, mails the unlock link, and then even the right password is refused unchecked.
    await expect(accounts.disableTotp(owner.id, 'wrong password 9')).rejects.toMatchObject({ reason: 'locked' });
    await expect(accounts.disableTotp(owner.id, PASSWORD)).rejects.toMatchObject({ reason: 'locked' });
    await expect(accounts.renewRecoveryCodes(owner.id, PASSWORD)).rejects.toMatchObject({ reason: 'locked' });
    expect(await accounts.login('recheck@example.com', PASSWORD)).toEqual({ refused: 'locked' });
    expect(mailer.to('recheck@example.com', 'unlock')).toHaveLength(1);
    expect((await accounts.findForSession(owner.id))?.totpEnabled).toBe(true);
  });

  it('invitation: an owner invites, the invited person chooses a password and signs in with the role', async () => {
    const owner = await confirmedOwner('team-owner@example.com');
    const invitation = await accounts.invite(owner.merchantId, owner.id, 'dev@example.com', 'developer');
    expect(invitation).toMatchObject({ email: 'dev@example.com', role: 'developer' });
    expect(mailer.to('dev@example.com', 'invitation')[0]!.text).toContain('https://pay.example/dashboard/invitations/accept?token=');
    expect(await accounts.listInvitations(owner.merchantId)).toHaveLength(1);
    // Read before it is used (the accept page), and still usable after.
    await expect(accounts.invitationFor(mailer.token('dev@example.com', 'invitation'))).resolves.toMatchObject({ email: 'dev@example.com', role: 'developer' });
    await expect(accounts.invitationFor('not-a-token')).rejects.toMatchObject({ reason: 'invalid_token' });

    const dev = await accounts.acceptInvitation(mailer.token('dev@example.com', 'invitation'), 'developer passphrase');
    expect(dev).toMatchObject({ merchantId: owner.merchantId, role: 'developer' });
    expect(await accounts.login('dev@example.com', 'developer passphrase')).toMatchObject({ user: { id: dev.id } });
    expect(await accounts.listInvitations(owner.merchantId)).toHaveLength(0);
    await expect(accounts.acceptInvitation(mailer.token('dev@example.com', 'invitation'), 'developer passphrase')).rejects.toBeInstanceOf(AccountError);
    await expect(accounts.invitationFor(mailer.token('dev@example.com', 'invitation'))).rejects.toMatchObject({ reason: 'invalid_token' });

    // A developer cannot invite; nobody can act on another merchant's team.
    await expect(accounts.invite(owner.merchantId, dev.id, 'viewer@example.com', 'viewer')).rejects.toMatchObject({ reason: 'forbidden' });
    const other = await confirmedOwner('other-owner@example.com');
    await expect(accounts.invite(owner.merchantId, other.id, 'x@example.com', 'viewer')).rejects.toMatchObject({ reason: 'not_found' });
    await expect(accounts.removeUser(other.merchantId, other.id, dev.id)).rejects.toMatchObject({ reason: 'not_found' });
    await expect(accounts.invite(owner.merchantId, owner.id, 'dev@example.com', 'viewer')).rejects.toMatchObject({ reason: 'email_taken' });

    expect((await accounts.listUsers(owner.merchantId)).map((m) => [m.email, m.role])).toEqual([
      ['team-owner@example.com', 'owner'],
      ['dev@example.com', 'developer'],
    ]);
  });

  it('the last owner can be neither demoted nor removed, even by two owners at once', async () => {
    const first = await confirmedOwner('first-owner@example.com');
    await expect(accounts.changeRole(first.merchantId, first.id, first.id, 'viewer')).rejects.toMatchObject({ reason: 'last_owner' });
    await expect(accounts.removeUser(first.merchantId, first.id, first.id)).rejects.toMatchObject({ reason: 'last_owner' });
    await accounts.invite(first.merchantId, first.id, 'second-owner@example.com', 'owner');
    const second = await accounts.acceptInvitation(mailer.token('second-owner@example.com', 'invitation'), 'second passphrase');

    const both = await Promise.allSettled([
      accounts.changeRole(first.merchantId, first.id, second.id, 'viewer'),
      accounts.changeRole(first.merchantId, second.id, first.id, 'viewer'),
    ]);
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const owners = (await accounts.listUsers(first.merchantId)).filter((m) => m.role === 'owner');
    expect(owners).toHaveLength(1);

    const viewer = both[0].status === 'fulfilled' ? second : first;
    await expect(accounts.invite(first.merchantId, viewer.id, 'x@example.com', 'viewer')).rejects.toMatchObject({ reason: 'forbidden' });
    await accounts.removeUser(first.merchantId, owners[0]!.id, viewer.id);
    expect(await accounts.findForSession(viewer.id)).toBeNull();
    expect(await accounts.sessionValid(viewer.id, 0)).toBe(false);
  });

  it('mails a merchant\'s notices to its confirmed owners; to the merchant\'s own address while none has confirmed', async () => {
    const recipients = new MailRecipients(dataSource, 'gateway');
    const owner = await confirmedOwner('notices-owner@example.com');
    expect(await recipients.ownerAddressesOf(owner.merchantId)).toEqual(['notices-owner@example.com']);
    // A second owner (confirmed) hears too; a developer and an unconfirmed owner do not.
    const inviteAndAccept = async (email: string, role: string) => {
      await accounts.invite(owner.merchantId, owner.id, email, role);
      return accounts.acceptInvitation(mailer.token(email, 'invitation'), PASSWORD);
    };
    await inviteAndAccept('notices-second@example.com', 'owner');
    await inviteAndAccept('notices-dev@example.com', 'developer');
    expect((await recipients.ownerAddressesOf(owner.merchantId)).sort()).toEqual(['notices-owner@example.com', 'notices-second@example.com']);

    const unconfirmed = await accounts.signUp({ email: 'not-yet@example.com', password: PASSWORD, businessName: 'Later', language: 'en' });
    expect(await recipients.ownerAddressesOf(unconfirmed.user.merchantId)).toEqual(['not-yet@example.com']);
    expect(await recipients.ownerAddressesOf('acct_nobody')).toEqual([]);
  });

  it('sends at most one asked-for link a minute and five a day per user and kind, with the same answer', async () => {
    await confirmedOwner('flood@example.com');
    const resets = () => mailer.to('flood@example.com', 'password_reset').length;
    await accounts.requestPasswordReset('flood@example.com');
    await Promise.all([accounts.requestPasswordReset('flood@example.com'), accounts.requestPasswordReset('FLOOD@example.com')]);
    expect(resets()).toBe(1);
    for (let i = 0; i < 6; i++) {
      nowMs += 61_000;
      await accounts.requestPasswordReset('flood@example.com');
    }
    expect(resets()).toBe(5);
    // Another kind keeps its own count (the address is confirmed: no new confirmation link at all).
    await accounts.resendConfirmation('flood@example.com');
    expect(mailer.to('flood@example.com', 'confirm_email')).toHaveLength(1);
  });
});
