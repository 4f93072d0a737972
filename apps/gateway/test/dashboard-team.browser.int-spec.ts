import { randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import type { TestMerchant } from '@payments/testing';
import { axeViolations, checkPage, createUser, linkIn, newTab, shot, signIn, startDashboardStack, type DashboardStack } from './dashboard.harness';

// The team and the user's own security in a real browser: an owner invites a viewer by e-mail, the mailed link signs
// the new user in, a viewer sees the team without forms and its posts are refused; the last owner stays (the page
// says why); two-step sign-in set up on the page with a code made here from the shown key, then needed at sign-in,
// a recovery code working once; "log out everywhere" ends another browser's session.
describe('dashboard team and security in the browser', () => {
  let dashboard: DashboardStack;
  let merchant: TestMerchant;

  beforeAll(async () => {
    dashboard = await startDashboardStack(['gateway']);
    merchant = await dashboard.stack.createMerchant();
  });

  afterAll(async () => {
    await dashboard?.stop();
  });

  const team = () => `${dashboard.url}/dashboard/test/team`;
  const security = () => `${dashboard.url}/dashboard/test/security`;

  /** A post of the page's own session, with its CSRF token and origin (as a form of the page would send). */
  async function post(page: Page, path: string, form: Record<string, string>) {
    const csrf = await page.locator('header form input[name=_csrf]').inputValue();
    return page.request.post(`${dashboard.url}${path}`, { form: { _csrf: csrf, ...form }, headers: { origin: dashboard.url }, maxRedirects: 0 });
  }

  async function signInWithCode(page: Page, email: string, password: string, code: string): Promise<boolean> {
    await page.goto(`${dashboard.url}/dashboard/login`);
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(password);
    await page.locator('form[action="/dashboard/login"] button[type=submit]').click();
    await page.locator('form[action="/dashboard/login/second-factor"]').waitFor();
    await page.locator('#code').fill(code);
    await page.locator('form[action="/dashboard/login/second-factor"] button[type=submit]').click();
    await page.waitForLoadState();
    return /\/dashboard\/(test|live)\/home$/.test(page.url());
  }

  async function signOut(page: Page): Promise<void> {
    await page.locator('form[action="/dashboard/logout"] button[type=submit]').click();
    await page.locator('form[action="/dashboard/login"], a[href="/dashboard/login"]').first().waitFor();
  }

  it('an owner invites a viewer by e-mail; the link signs them in; a viewer sees no forms and its posts are refused', async () => {
    const owner = await createUser(dashboard.stack, merchant.merchant_id, 'owner');
    const { context, page } = await newTab(dashboard);
    await signIn(dashboard, page, owner.email, owner.password);
    await page.goto(team());
    await checkPage(page, 'team-owner');

    const invited = `viewer-${randomUUID().slice(0, 8)}@example.com`;
    await page.locator('#invite-email').fill(invited);
    await page.locator('#invite-role').selectOption('viewer');
    await page.locator('[data-form="invite"] button[type=submit]').click();
    await page.locator('[data-notice="invited"]').waitFor();
    expect(await page.locator(`[data-invitation="${invited}"]`).count()).toBe(1);
    await checkPage(page, 'team-invited');

    // The mail arrives through the outbox; its link opens the accept page in a browser that never signed in.
    const mail = await dashboard.smtp.waitFor((m) => m.to.includes(invited));
    const link = linkIn(mail.text, `${dashboard.url}/dashboard/invitations/accept`);
    const fresh = await newTab(dashboard);
    await fresh.page.goto(link);
    expect(await fresh.page.locator('#email').inputValue()).toBe(invited);
    await checkPage(fresh.page, 'invitation-accept');
    // Too short a password: refused on the page, the link still works.
    await fresh.page.locator('#password').fill('short');
    await fresh.page.locator('#password').evaluate((input) => input.removeAttribute('minlength'));
    await fresh.page.locator('form[action="/dashboard/invitations/accept"] button[type=submit]').click();
    await fresh.page.locator('[role=alert]').waitFor();
    const viewerPassword = 'viewer passphrase 1';
    await fresh.page.locator('#password').fill(viewerPassword);
    await Promise.all([fresh.page.waitForURL(`${dashboard.url}/dashboard/test/home`), fresh.page.locator('form[action="/dashboard/invitations/accept"] button[type=submit]').click()]);
    // Used: the link is no longer valid.
    const again = await fresh.context.newPage();
    expect((await again.goto(link))!.status()).toBe(400);
    await again.close();

    // The viewer: the team without forms; a post to invite is 403 and invites nobody.
    await fresh.page.goto(team());
    expect(await fresh.page.locator(`[data-user="${invited}"]`).getAttribute('data-role')).toBe('viewer');
    expect(await fresh.page.locator('main form').count()).toBe(0);
    await checkPage(fresh.page, 'team-viewer');
    const refused = await post(fresh.page, '/dashboard/test/team/invitations', { email: 'sneaky@example.com', role: 'owner' });
    expect(refused.status()).toBe(403);
    const viewerId = (await dashboard.stack.db.dataSource('gateway').then((db) => db.query('SELECT id FROM gateway.users WHERE email = $1', [invited])))[0].id as string;
    expect((await post(fresh.page, `/dashboard/test/team/users/${viewerId}/role`, { role: 'owner' })).status()).toBe(403);
    await page.goto(team());
    expect(await page.locator('[data-invitation="sneaky@example.com"]').count()).toBe(0);
    expect(await page.locator(`[data-user="${invited}"]`).getAttribute('data-role')).toBe('viewer');
    await fresh.context.close();

    // The owner changes the viewer's role; invites and cancels; another merchant's user is 404.
    await page.locator(`[data-user="${invited}"] select`).selectOption('developer');
    await page.locator(`[data-user="${invited}"] [data-form="change-role"] button[type=submit]`).click();
    await page.locator('[data-notice="role_changed"]').waitFor();
    expect(await page.locator(`[data-user="${invited}"]`).getAttribute('data-role')).toBe('developer');
    await page.locator('#invite-email').fill('changed-mind@example.com');
    await page.locator('[data-form="invite"] button[type=submit]').click();
    await page.locator('[data-notice="invited"]').waitFor();
    await page.locator('[data-invitation="changed-mind@example.com"] button[type=submit]').click();
    await page.locator('[data-notice="cancelled"]').waitFor();
    expect(await page.locator('[data-invitation="changed-mind@example.com"]').count()).toBe(0);
    const stranger = await createUser(dashboard.stack, (await dashboard.stack.createMerchant()).merchant_id, 'viewer');
    expect((await post(page, `/dashboard/test/team/users/${stranger.id}/remove`, {})).status()).toBe(404);
    expect((await page.goto(`${team()}/users/${stranger.id}/remove`))!.status()).toBe(404);

    // The last owner is kept: demoting or removing them is refused, and the page says why.
    await page.goto(`${team()}/users/${owner.id}/remove`);
    await checkPage(page, 'team-remove');
    const answer = page.waitForResponse((res) => res.request().method() === 'POST');
    await page.locator('[data-form="remove-user"] button[type=submit]').click();
    expect((await answer).status()).toBe(409);
    expect(await page.locator('[data-error]').textContent()).toContain('the account needs an owner');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'team-last-owner-en');
    expect((await post(page, `/dashboard/test/team/users/${owner.id}/role`, { role: 'viewer' })).status()).toBe(409);
    await page.goto(team());
    expect(await page.locator(`[data-user="${owner.email}"]`).getAttribute('data-role')).toBe('owner');

    // Removing the developer: gone from the list.
    await page.goto(`${team()}/users/${viewerId}/remove`);
    await page.locator('[data-form="remove-user"] button[type=submit]').click();
    await page.locator('[data-notice="removed"]').waitFor();
    expect(await page.locator(`[data-user="${invited}"]`).count()).toBe(0);
    await context.close();
  });

  it('two-step sign-in: on with a code from the shown key, then needed at sign-in; a recovery code works once; off with the password', async () => {
    const user = await createUser(dashboard.stack, merchant.merchant_id, 'developer');
    const { context, page } = await newTab(dashboard);
    await signIn(dashboard, page, user.email, user.password);
    await page.goto(security());
    expect(await page.locator('[data-totp]').getAttribute('data-totp')).toBe('off');
    await checkPage(page, 'security-off');

    await page.locator('[data-form="totp-start"] button[type=submit]').click();
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    expect(await page.locator('[data-totp-uri]').textContent()).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-setup-en');
    // A wrong code: refused on the page, nothing turned on.
    await page.locator('#totp-code').fill('000000');
    await page.locator('[data-form="totp-enable"] button[type=submit]').click();
    await page.locator('[data-error]').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-setup-wrong-code-en');
    const now = () => Math.floor(Date.now() / 1000);
    await page.locator('#totp-code').fill(await generate({ secret, epoch: now() }));
    await page.locator('[data-form="totp-enable"] button[type=submit]').click();
    const codes = (await page.locator('[data-recovery-codes] code').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-recovery-codes-en');
    await page.goto(security());
    expect(await page.locator('[data-totp]').getAttribute('data-totp')).toBe('on');
    await checkPage(page, 'security-on');

    // Sign-in now needs the second step: the next code (the one used to turn it on is spent), then a recovery code once.
    await signOut(page);
    expect(await signInWithCode(page, user.email, user.password, await generate({ secret, epoch: now() + 30 }))).toBe(true);
    await signOut(page);
    expect(await signInWithCode(page, user.email, user.password, codes[0]!)).toBe(true);
    await page.goto(security());
    expect(await page.locator('[data-recovery-left]').textContent()).toBe('9');
    await signOut(page);
    expect(await signInWithCode(page, user.email, user.password, codes[0]!)).toBe(false);
    await page.locator('[role=alert]').waitFor();
    expect(await signInWithCode(page, user.email, user.password, codes[1]!)).toBe(true);

    // New recovery codes with the password (a wrong one is refused on its own form): the ones left stop working.
    await page.goto(security());
    await page.locator('#renew-password').fill('not the password');
    await page.locator('[data-form="recovery-renew"] button[type=submit]').click();
    await page.locator('[data-form="recovery-renew"] [data-error]').waitFor();
    expect(await page.locator('[data-recovery-left]').textContent()).toBe('8');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-renew-wrong-password-en');
    await page.locator('#renew-password').fill(user.password);
    await page.locator('[data-form="recovery-renew"] button[type=submit]').click();
    const renewed = (await page.locator('[data-recovery-codes] code').allTextContents()).map((c) => c.trim());
    expect(renewed).toHaveLength(10);
    expect(renewed).not.toContain(codes[2]);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-recovery-renewed-en');
    await page.goto(security());
    expect(await page.locator('[data-recovery-left]').textContent()).toBe('10');
    await signOut(page);
    expect(await signInWithCode(page, user.email, user.password, codes[2]!)).toBe(false);
    expect(await signInWithCode(page, user.email, user.password, renewed[0]!)).toBe(true);

    // Off with the password (a wrong one is refused), then sign-in is one step again.
    await page.goto(security());
    await page.locator('#disable-password').fill('not the password');
    await page.locator('[data-form="totp-disable"] button[type=submit]').click();
    await page.locator('[data-error]').waitFor();
    await page.locator('#disable-password').fill(user.password);
    await page.locator('[data-form="totp-disable"] button[type=submit]').click();
    await page.locator('[data-notice]').waitFor();
    expect(await page.locator('[data-totp]').getAttribute('data-totp')).toBe('off');
    await signOut(page);
    await signIn(dashboard, page, user.email, user.password);

    // The set-up and the recovery codes (answers to forms) in Arabic too.
    await page.goto(`${security()}?lang=ar`);
    await page.locator('[data-form="totp-start"] button[type=submit]').click();
    const arabicSecret = (await page.locator('#totp-secret').textContent())!.trim();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-setup-ar');
    await page.locator('#totp-code').fill(await generate({ secret: arabicSecret, epoch: now() }));
    await page.locator('[data-form="totp-enable"] button[type=submit]').click();
    expect(await page.locator('[data-recovery-codes] code').count()).toBe(10);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-recovery-codes-ar');
    await page.goto(`${security()}?lang=ar`);
    await page.locator('#renew-password').fill(user.password);
    await page.locator('[data-form="recovery-renew"] button[type=submit]').click();
    expect(await page.locator('[data-recovery-codes] code').count()).toBe(10);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'security-recovery-renewed-ar');
    await context.close();
  });

  it('"log out everywhere" on the security page ends the session of another browser too', async () => {
    const user = await createUser(dashboard.stack, merchant.merchant_id, 'viewer');
    const first = await newTab(dashboard);
    const second = await newTab(dashboard);
    await signIn(dashboard, first.page, user.email, user.password);
    await signIn(dashboard, second.page, user.email, user.password);
    await first.page.goto(security());
    await first.page.locator('[data-form="logout-everywhere"] button[type=submit]').click();
    await first.page.locator('a[href="/dashboard/login"]').waitFor();
    await second.page.goto(team());
    expect(second.page.url()).toContain('/dashboard/login');
    await first.page.goto(team());
    expect(first.page.url()).toContain('/dashboard/login');
    await first.context.close();
    await second.context.close();
  });
});
