import { randomUUID } from 'node:crypto';
import { axeViolations, checkPage, linkIn, shot, newTab, signIn, startDashboardStack, type DashboardStack } from './dashboard.harness';
import { waitFor } from '@payments/testing';

// A merchant signs up on the dashboard, as a new merchant would: sign-up → test key at once (it works against the
// API) → e-mail confirmation → sign-in; then the protections of the forms: CSRF token, origin, sign-out, lock-out.
describe('dashboard accounts in the browser', () => {
  let dashboard: DashboardStack;
  const password = 'correct horse battery';

  beforeAll(async () => {
    dashboard = await startDashboardStack(['sessions', 'gateway'], { LOG_LEVEL: 'info' });
  });

  afterAll(async () => {
    await dashboard?.stop();
  });

  async function signUp(email: string): Promise<{ testKey: string; page: import('playwright-core').Page; context: import('playwright-core').BrowserContext }> {
    const { context, page } = await newTab(dashboard);
    await page.goto(`${dashboard.url}/dashboard/signup`);
    await page.getByLabel('Business name').fill('Olive Grove Soap');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    const testKey = (await page.locator('[data-secret]').textContent())!.trim();
    return { testKey, page, context };
  }

  it('signs up, shows a working test key at once, confirms the e-mail and signs in', async () => {
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
    const { page, context, testKey } = await signUp(email);
    expect(testKey).toMatch(/^pay_test_/);
    const created = await fetch(`${dashboard.url}/api/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ amount: '12.50', currency: 'USD' }),
    });
    expect(created.status).toBe(201);

    // Not confirmed yet: sign-in says so.
    await page.goto(`${dashboard.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Confirm your e-mail address first').waitFor();

    const mail = await dashboard.smtp.waitFor((m) => m.to.includes(email));
    const link = linkIn(mail.text, `${dashboard.url}/dashboard/confirm`);
    await page.goto(link);
    await page.getByRole('heading', { name: 'E-mail confirmed' }).waitFor();
    // The gateway's request log names the link's parameter, never its token (a mailed link's token is a password).
    const token = new URL(link).searchParams.get('token')!;
    await waitFor(() => dashboard.stack.services.gateway!.output().includes('/dashboard/confirm?token=[redacted]'), 5_000, 'the request logged');
    expect(dashboard.stack.services.gateway!.output()).not.toContain(token);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'confirmed-en');
    // The link is used up: opened again, it says so (and that page passes too).
    await checkPage(page, 'confirm-link-used');

    await signIn(dashboard, page, email, password);
    expect(page.url()).toBe(`${dashboard.url}/dashboard/test/home`);
    await page.locator('[data-banner=verification]').waitFor();
    expect(await page.locator('[data-environment]').getAttribute('data-environment')).toBe('test');
    await checkPage(page, 'home');
    await context.close();
  });

  it('every signed-out page passes axe at 360 px in English and Arabic', async () => {
    const { page, context } = await newTab(dashboard);
    for (const [path, name] of [
      ['/dashboard/login', 'login'],
      ['/dashboard/signup', 'signup'],
      ['/dashboard/forgot-password', 'forgot-password'],
      ['/dashboard/reset-password?token=x', 'reset-password'],
    ] as const) {
      await page.goto(`${dashboard.url}${path}`);
      await checkPage(page, name);
    }
    await context.close();
  });

  it('refuses a form without its CSRF token, from another origin, and after sign-out; nothing is done', async () => {
    const email = `csrf-${randomUUID().slice(0, 8)}@example.com`;
    const { page, context } = await signUp(email);
    const mail = await dashboard.smtp.waitFor((m) => m.to.includes(email));
    await page.goto(linkIn(mail.text, `${dashboard.url}/dashboard/confirm`));
    await signIn(dashboard, page, email, password);
    const token = await page.locator('form[action="/dashboard/logout"] input[name=_csrf]').inputValue();

    // Same browser (its cookies), no token: refused, still signed in.
    const noToken = await context.request.post(`${dashboard.url}/dashboard/logout`, { form: {}, headers: { origin: dashboard.url }, maxRedirects: 0 });
    expect(noToken.status()).toBe(403);
    // Right token, another site's origin: refused.
    const foreign = await context.request.post(`${dashboard.url}/dashboard/logout`, { form: { _csrf: token }, headers: { origin: 'https://evil.example' }, maxRedirects: 0 });
    expect(foreign.status()).toBe(403);
    await page.goto(`${dashboard.url}/dashboard/test/home`);
    expect(page.url()).toBe(`${dashboard.url}/dashboard/test/home`);

    // Sign out through the page; the old form with its token, posted again, is refused.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Signed out' }).waitFor();
    const afterLogout = await context.request.post(`${dashboard.url}/dashboard/logout-everywhere`, { form: { _csrf: token }, headers: { origin: dashboard.url }, maxRedirects: 0 });
    expect(afterLogout.status()).toBe(403);
    await page.goto(`${dashboard.url}/dashboard/test/home`);
    expect(page.url()).toContain('/dashboard/login');
    await context.close();
  });

  it('locks the account after 10 bad passwords, says so, and the mailed link unlocks it', async () => {
    const email = `locked-${randomUUID().slice(0, 8)}@example.com`;
    const { page, context } = await signUp(email);
    const confirm = await dashboard.smtp.waitFor((m) => m.to.includes(email));
    await page.goto(linkIn(confirm.text, `${dashboard.url}/dashboard/confirm`));
    for (let i = 1; i <= 10; i++) {
      await page.goto(`${dashboard.url}/dashboard/login`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(`wrong password ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('[role=alert]').waitFor();
    }
    await page.getByText('This account is locked after 10 failed sign-ins').waitFor();
    // Locked: even the right password is refused.
    await page.goto(`${dashboard.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('This account is locked').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'locked-en');

    const unlock = await dashboard.smtp.waitFor((m) => m.to.includes(email) && m.text.includes('/dashboard/unlock'));
    await page.goto(linkIn(unlock.text, `${dashboard.url}/dashboard/unlock`));
    await page.getByRole('heading', { name: 'Account unlocked' }).waitFor();
    await signIn(dashboard, page, email, password);
    expect(page.url()).toContain('/dashboard/test/home');
    await context.close();
  });
});
