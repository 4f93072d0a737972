import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { waitFor } from '@payments/testing';
import { axeViolations, checkPage, linkIn, newTab, shot, signIn, startDashboardStack, type DashboardStack } from './dashboard.harness';

// The whole path in a real browser, as a new merchant meets it: sign-up → e-mail confirmation → sign-in → the
// test key shown at sign-up works → live keys locked with the reason shown → verification details (a refused field
// marked) → pending with the banner → the operator verifies with the admin CLI → verified, no banner → a live key
// made on the developer page works against the live API. Then the operator rejects with a reason: the live key is
// refused 403 account_not_verified, the page shows the reason and the form again, and a resubmission is pending.
describe('merchant onboarding in the browser', () => {
  let dashboard: DashboardStack;
  const password = 'correct horse battery';
  const details = { business: 'Olive Grove Soap LLC', country: 'PS', owner: 'Lina Haddad', contact: '+970 59 123 4567' };

  beforeAll(async () => {
    dashboard = await startDashboardStack(['sessions', 'gateway']);
  });

  afterAll(async () => {
    await dashboard?.stop();
  });

  const createIntent = (key: string) =>
    fetch(`${dashboard.url}/api/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ amount: '12.50', currency: 'USD' }),
    });

  async function merchantIdOf(email: string): Promise<string> {
    const db = await dashboard.stack.db.dataSource('gateway');
    const rows = (await db.query('SELECT merchant_id FROM gateway.users WHERE email = $1', [email])) as Array<{ merchant_id: string }>;
    return rows[0]!.merchant_id;
  }

  async function fillDetails(page: Page, values: typeof details): Promise<void> {
    await page.locator('#businessName').fill(values.business);
    await page.locator('#country').selectOption(values.country);
    await page.locator('#ownerName').fill(values.owner);
    await page.locator('#contact').fill(values.contact);
  }

  async function submitDetails(page: Page): Promise<number> {
    const answer = page.waitForResponse((res) => res.request().method() === 'POST' && res.url().includes('/verification'));
    await page.locator('[data-form="verification"] button[type=submit]').click();
    const status = (await answer).status();
    // Accepted: post/redirect/get back to the page with its notice; refused: the page itself.
    await (status === 303 ? page.locator('[data-notice="submitted"]') : page.locator('[data-verification-status]')).waitFor();
    return status;
  }

  it('sign-up → confirmation → test key → verification → operator verifies → live key works; rejected → reason → resubmitted', async () => {
    const email = `onboard-${randomUUID().slice(0, 8)}@example.com`;
    const { context, page } = await newTab(dashboard);

    // Sign-up: the test key at once.
    await page.goto(`${dashboard.url}/dashboard/signup`);
    await page.locator('#business').fill('Olive Grove Soap');
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(password);
    await page.locator('form[action="/dashboard/signup"] button[type=submit]').click();
    const testKey = (await page.locator('[data-secret]').textContent())!.trim();
    expect(testKey).toMatch(/^pay_test_/);

    // Confirmation by the mailed link, then sign-in; the test key works against the API.
    const mail = await dashboard.smtp.waitFor((m) => m.to.includes(email));
    await page.goto(linkIn(mail.text, `${dashboard.url}/dashboard/confirm`));
    await signIn(dashboard, page, email, password);
    expect(page.url()).toBe(`${dashboard.url}/dashboard/test/home`);
    expect((await createIntent(testKey)).status).toBe(201);
    const merchantId = await merchantIdOf(email);

    // Live keys are locked, with the reason on the developer page; a post to create one is refused (400) and says why.
    await page.goto(`${dashboard.url}/dashboard/live/developers`);
    await page.locator('[data-live-locked]').waitFor();
    expect(await page.locator('[data-form="create-key"]').count()).toBe(0);
    const csrf = await page.locator('header form input[name=_csrf]').inputValue();
    const refusedKey = await page.request.post(`${dashboard.url}/dashboard/live/developers/keys`, { form: { _csrf: csrf, name: 'Too early' }, headers: { origin: dashboard.url } });
    expect(refusedKey.status()).toBe(400);
    expect(await refusedKey.text()).toContain('Live keys can be created once your account is verified.');

    // The verification page: unverified, with the form; a refused field is marked next to its input, values kept.
    await page.goto(`${dashboard.url}/dashboard/test/verification`);
    expect(await page.locator('[data-verification-status]').getAttribute('data-verification-status')).toBe('unverified');
    await checkPage(page, 'verification-unverified');
    await fillDetails(page, { ...details, contact: 'call me' });
    expect(await submitDetails(page)).toBe(400);
    await page.locator('[data-field-error="contact"]').waitFor();
    expect(await page.locator('#contact').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#businessName').inputValue()).toBe(details.business);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'verification-field-error-en');

    await fillDetails(page, details);
    expect(await submitDetails(page)).toBe(303);
    await page.locator('[data-notice="submitted"]').waitFor();
    expect(await page.locator('[data-verification-status]').getAttribute('data-verification-status')).toBe('pending');
    expect(await page.locator('[data-form="verification"]').count()).toBe(0);
    expect(await page.locator('[data-details]').textContent()).toContain(details.owner);
    await checkPage(page, 'verification-pending');
    // Every other page says why live mode waits.
    await page.goto(`${dashboard.url}/dashboard/test/home`);
    expect(await page.locator('[data-banner=verification]').textContent()).toContain('being reviewed');

    // The operator verifies: no banner, the page says verified, and a live key made on the page works.
    await dashboard.stack.admin('merchant', 'verify', '--id', merchantId);
    await page.goto(`${dashboard.url}/dashboard/test/home`);
    expect(await page.locator('[data-banner=verification]').count()).toBe(0);
    await page.goto(`${dashboard.url}/dashboard/live/verification`);
    expect(await page.locator('[data-verification-status]').getAttribute('data-verification-status')).toBe('verified');
    await checkPage(page, 'verification-verified');
    await page.goto(`${dashboard.url}/dashboard/live/developers`);
    await page.locator('#key-name').fill('Live shop server');
    await page.locator('[data-form="create-key"] button[type=submit]').click();
    const liveKey = (await page.locator('[data-secret]').textContent())!.trim();
    expect(liveKey).toMatch(/^pay_live_/);
    await waitFor(async () => (await createIntent(liveKey)).status === 201, 5000, 'a payment intent created with the live key');

    // The operator rejects with a reason: the live API refuses the key, the page shows the reason and the form again.
    await dashboard.stack.admin('merchant', 'reject', '--id', merchantId, '--reason', 'The registry has no business of that name');
    await waitFor(async () => (await createIntent(liveKey)).status === 403, 3000, 'the live key refused after the rejection');
    const refused = (await (await createIntent(liveKey)).json()) as { error: { code: string } };
    expect(refused.error.code).toBe('account_not_verified');
    await page.goto(`${dashboard.url}/dashboard/test/verification`);
    expect(await page.locator('[data-verification-status]').getAttribute('data-verification-status')).toBe('rejected');
    expect(await page.locator('[data-rejection-reason]').textContent()).toBe('The registry has no business of that name');
    // The details sent before are there to correct.
    expect(await page.locator('#ownerName').inputValue()).toBe(details.owner);
    await checkPage(page, 'verification-rejected');
    await page.locator('#businessName').fill('Olive Grove Soap Trading LLC');
    expect(await submitDetails(page)).toBe(303);
    expect(await page.locator('[data-verification-status]').getAttribute('data-verification-status')).toBe('pending');
    expect(await page.locator('[data-details]').textContent()).toContain('Olive Grove Soap Trading LLC');
    await context.close();
  });
});
