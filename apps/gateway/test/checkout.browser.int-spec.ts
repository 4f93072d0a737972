import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT, startStack, TestWebhookReceiver, waitFor, type Stack, type TestMerchant } from '@payments/testing';
import { formatMoney, parseMoneyString } from '@payments/money';
import { isolatedTab, type IsolatedTabOptions } from './support/isolated-tab';

/** A MoneyString as exact cents. */
function centsOf(money: string): number {
  const parsed = parseMoneyString(money, { minCents: 0 });
  if (!parsed.ok) throw new Error(`not money: ${money}`);
  return parsed.cents;
}

// The hosted checkout in a real browser (Debian's chromium, driven by playwright-core), as a customer meets it:
// test sandboxes that drive the same state machine, events, ledger and webhooks as live, every page state checked
// by axe-core, on a phone-sized screen and in Arabic. Screenshots go to .cache/screenshots/.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(REPO_ROOT, '.cache', 'screenshots');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SHOP = 'https://shop.example';

describe('hosted checkout in the browser', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let browser: Browser;
  const receiver = new TestWebhookReceiver();
  /** Verified webhooks as they arrived (a redelivery too). */
  const verified = receiver.arrivals;

  const api = (method: string, path: string, body?: object) =>
    stack.call(method, path, { key: merchant.test_key, body, headers: method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {} });

  async function intent(body: object = {}) {
    const res = await api('POST', '/api/v1/payment-intents', { amount: '40.00', currency: 'USD', description: 'Two mugs', ...body });
    expect(res.status).toBe(201);
    return res.body as { id: string; checkout_url: string };
  }

  /** A browser tab that records any request leaving the gateway (the page must make none). */
  const tab = (options: IsolatedTabOptions = {}) => isolatedTab(browser, stack.gatewayUrl, options);

  const pageUrl = (id: string) => `${stack.gatewayUrl}/checkout/${id}`;

  /** One payment stored for the session, and one signed payment_intent.succeeded received (a second would show within 1 s). */
  async function expectOnePayment(intentId: string): Promise<void> {
    const db = new Client({ connectionString: stack.db.url });
    await db.connect();
    const payments = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions.payments WHERE source_id = $1`, [intentId]);
    await db.end();
    expect(payments.rows[0]!.n).toBe(1);
    await waitFor(() => verified.some((v) => v.webhook.type === 'payment_intent.succeeded' && v.objectId === intentId), 30_000, 'the webhook');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(verified.filter((v) => v.webhook.type === 'payment_intent.succeeded' && v.objectId === intentId)).toHaveLength(1);
  }

  /** Clicks a form's button; answers where the checkout sent the customer (the merchant's site is not reachable here). */
  async function redirectAfter(page: Page, button: string): Promise<string | undefined> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().startsWith(stack.gatewayUrl)),
      page.getByRole('button', { name: button }).click(),
    ]);
    expect(response.status()).toBe(303);
    const location = response.headers()['location'];
    // The merchant's site does not resolve here: let the browser settle on its error page before the next step.
    if (location?.startsWith('https://')) await page.waitForURL((url) => !url.href.startsWith(stack.gatewayUrl), { timeout: 10_000 }).catch(() => undefined);
    return location;
  }

  async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number }>> {
    await page.evaluate(AXE);
    const result = (await page.evaluate('axe.run()')) as {
      violations: Array<{ id: string; nodes: unknown[] }>;
    };
    return result.violations.map((v) => ({ id: v.id, nodes: v.nodes.length }));
  }

  async function shot(page: Page, name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (npm test installs it)`);
    const receiverUrl = await receiver.listen();
    stack = await startStack(['sessions', 'ledger', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000' });
    merchant = await stack.createMerchant({ verified: true });
    const endpoint = await api('POST', '/api/v1/webhook-endpoints', { url: receiverUrl });
    receiver.secret = endpoint.body.secret;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver.close();
  });

  it('pays a test intent end to end: page → pay → success_url → succeeded → signed webhook → balance grows by the net', async () => {
    const before = (await api('GET', '/api/v1/balance')).body.available[0].amount as string;
    const created = await intent({ success_url: `${SHOP}/done` });
    expect(created.checkout_url).toMatch(new RegExp(`/checkout/${created.id}$`));
    const { context, page, foreign } = await tab();
    const res = await page.goto(pageUrl(created.id));
    expect(res?.status()).toBe(200);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(headers['referrer-policy']).toBe('same-origin');
    await expect(page.locator('h1').textContent()).resolves.toMatch(/^Pay /);
    expect(await page.locator('dd').allTextContents()).toEqual(['40.00 USD', 'Two mugs']);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-pay');

    expect(await redirectAfter(page, 'Pay with Togo balance')).toBe(`${SHOP}/done?session_id=${created.id}`);
    const paid = (await api('GET', `/api/v1/payment-intents/${created.id}`)).body;
    expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'togo' });
    await waitFor(() => verified.some((v) => v.webhook.type === 'payment_intent.succeeded' && v.objectId === created.id), 30_000, 'the signed webhook');
    const expected = formatMoney(centsOf(before) + centsOf(paid.net_amount));
    await waitFor(async () => (await api('GET', '/api/v1/balance')).body.available[0].amount === expected, 30_000, 'the balance to grow by the net');
    expect(foreign).toEqual([]);

    // The page afterwards is the receipt, never a second payment.
    await page.goto(pageUrl(created.id));
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    expect(await page.locator('dd').allTextContents()).toEqual([paid.payment_id]);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-paid');
    await context.close();
  });

  it('declined, then paid on the retry; without a success_url the receipt is shown', async () => {
    const created = await intent();
    const { context, page } = await tab();
    await page.goto(pageUrl(created.id));
    await Promise.all([page.waitForURL(/declined=1$/), page.getByRole('button', { name: 'Decline with Togo balance' }).click()]);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('declined');
    expect((await api('GET', `/api/v1/payment-intents/${created.id}`)).body.status).toBe('failed');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-declined');
    await Promise.all([page.waitForURL(pageUrl(created.id)), page.getByRole('button', { name: 'Pay with Card (Lahza)' }).click()]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    expect((await api('GET', `/api/v1/payment-intents/${created.id}`)).body).toMatchObject({ status: 'succeeded', payment_method: 'lahza' });
    await context.close();
  });

  it('works without JavaScript: the page, a decline, a payment and the receipt are plain forms and redirects', async () => {
    const created = await intent({ success_url: `${SHOP}/done` });
    const { context, page } = await tab({ javaScript: false });
    await page.goto(pageUrl(created.id));
    // The countdown's text is rendered by the server.
    await expect(page.locator('#time-left').textContent()).resolves.toMatch(/^\d+ min \d{2} s$/);
    await Promise.all([page.waitForURL(/declined=1$/), page.getByRole('button', { name: 'Decline with Togo balance' }).click()]);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('declined');
    expect(await redirectAfter(page, 'Pay with Togo balance')).toBe(`${SHOP}/done?session_id=${created.id}`);
    await page.goto(pageUrl(created.id));
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    await context.close();
  });

  it('a double click on pay is one payment', async () => {
    const created = await intent();
    const { context, page } = await tab();
    await page.goto(pageUrl(created.id));
    await page.getByRole('button', { name: 'Pay with Togo balance' }).dblclick();
    await page.locator('h1', { hasText: 'Payment received' }).waitFor({ timeout: 10_000 });
    await expectOnePayment(created.id);
    await context.close();
  });

  it('cancel sends the customer to cancel_url and the intent becomes cancelled; the page then says so', async () => {
    const created = await intent({ cancel_url: `${SHOP}/cart` });
    const { context, page } = await tab();
    await page.goto(pageUrl(created.id));
    expect(await redirectAfter(page, 'Cancel payment')).toBe(`${SHOP}/cart?session_id=${created.id}`);
    expect((await api('GET', `/api/v1/payment-intents/${created.id}`)).body.status).toBe('cancelled');
    await page.goto(pageUrl(created.id));
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment cancelled');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('two tabs paying the same session make one payment', async () => {
    const created = await intent({ success_url: `${SHOP}/done` });
    const first = await tab();
    const second = await tab();
    await Promise.all([first.page.goto(pageUrl(created.id)), second.page.goto(pageUrl(created.id))]);
    await Promise.all([
      first.page.getByRole('button', { name: 'Pay with Togo balance' }).click(),
      second.page.getByRole('button', { name: 'Pay with Card (Lahza)' }).click(),
    ]);
    await Promise.all([first.page.waitForLoadState(), second.page.waitForLoadState()]);
    const paid = (await api('GET', `/api/v1/payment-intents/${created.id}`)).body;
    expect(paid.status).toBe('succeeded');
    await expectOnePayment(created.id);
    await first.context.close();
    await second.context.close();
  });

  it('an expired invoice, an unknown link: pages of their own, never JSON', async () => {
    const invoice = (await api('POST', '/api/v1/invoices', { amount: '12.00', currency: 'USD' })).body;
    expect((await api('POST', `/api/v1/invoices/${invoice.id}/simulate`, { result: 'expired' })).status).toBe(200);
    const { context, page } = await tab();
    await page.goto(pageUrl(invoice.id));
    await expect(page.locator('h1').textContent()).resolves.toBe('This payment link has expired');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-expired');
    const unknown = await page.goto(pageUrl('pi_test_doesnotexist000000000000'));
    expect(unknown?.status()).toBe(404);
    expect(unknown?.headers()['content-type']).toMatch(/^text\/html/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment link not found');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('crypto sandbox: part of the amount leaves the rest due (partially_paid), more than due pays and records the overpayment', async () => {
    const created = await intent({ amount: '10.00' });
    const { context, page } = await tab();
    await page.goto(pageUrl(created.id));
    expect(await redirectAfter(page, 'Send part of it with Digital currency')).toBe(`/checkout/${created.id}`);
    await page.waitForURL(pageUrl(created.id));
    await expect(page.getByRole('status').textContent()).resolves.toBe('Received 5.00 USD; 5.00 USD still due.');
    const partly = (await api('GET', `/api/v1/payment-intents/${created.id}`)).body;
    expect(partly).toMatchObject({ status: 'processing', payment_method: 'crypto', crypto: { received_amount: '5.00', remaining_amount: '5.00', address: expect.stringMatching(/^0x[0-9a-f]{40}$/) } });
    await waitFor(() => verified.some((v) => v.webhook.type === 'payment_intent.partially_paid' && v.objectId === created.id), 30_000, 'partially_paid');
    // The rest is due: no cancel any more, only the crypto method.
    expect(await page.getByRole('button', { name: 'Cancel payment' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-crypto-partial');

    expect(await redirectAfter(page, 'Send more than due with Digital currency')).toBe(`/checkout/${created.id}`);
    await page.waitForURL(pageUrl(created.id));
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    await expect(page.locator('.note').textContent()).resolves.toMatch(/^1\.00 USD more than due was received/);
    const paid = (await api('GET', `/api/v1/payment-intents/${created.id}`)).body;
    expect(paid).toMatchObject({ status: 'succeeded', crypto: { received_amount: '11.00', remaining_amount: '0.00', overpayment_amount: '1.00' } });
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('a test page takes only the outcomes it offers: an unknown one (or none) changes nothing, it is no decline', async () => {
    const created = await intent();
    const { context, page } = await tab();
    for (const [i, form] of ([{ outcome: 'maybe' }, {}] as Array<Record<string, string>>).entries()) {
      const res = await page.request.post(`${pageUrl(created.id)}/pay`, { form: { method: 'togo', attempt: `odd${i}`, ...form }, maxRedirects: 0 });
      expect(res.status()).toBe(303);
    }
    const after = await stack.call('GET', `/api/v1/payment-intents/${created.id}`, { key: merchant.test_key });
    expect(after.body.status).toBe('requires_payment_method');
    await context.close();
  });

  it('pays a test invoice with its wallet sandbox; the invoice reads paid with the payment reference', async () => {
    const invoice = (await api('POST', '/api/v1/invoices', { amount: '18.00', currency: 'USD', description: 'Invoice 7', success_url: `${SHOP}/thanks` })).body;
    const { context, page } = await tab();
    await page.goto(pageUrl(invoice.id));
    expect(await page.locator('dd').allTextContents()).toEqual(['18.00 USD', 'Invoice 7']);
    expect(await axeViolations(page)).toEqual([]);
    expect(await redirectAfter(page, 'Pay with Wallet')).toBe(`${SHOP}/thanks?session_id=${invoice.id}`);
    const paid = (await api('GET', `/api/v1/invoices/${invoice.id}`)).body;
    expect(paid).toMatchObject({ status: 'paid', payment: { method: 'wallet' } });
    await page.goto(pageUrl(invoice.id));
    expect(await page.locator('dd').allTextContents()).toEqual([paid.payment.reference]);
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('a live session (no live Lahza key, no live chain: it offers togo only) offers the wallet sign-in and takes no payment through the page', async () => {
    const created = await stack.call('POST', '/api/v1/payment-intents', {
      key: merchant.live_key!,
      body: { amount: '30.00', currency: 'USD' },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(created.status).toBe(201);
    const { context, page } = await tab();
    await page.goto(pageUrl(created.body.id));
    expect(await page.getByRole('button', { name: /^Pay with/ }).count()).toBe(0);
    expect(created.body.available_methods).toEqual(['togo']);
    // togo is the customer's wallet: its sign-in, no sandbox.
    expect(await page.locator('.unavailable').allTextContents()).toEqual([]);
    expect(await page.getByRole('heading', { name: 'Pay from your Togo wallet' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    // A forged form post changes nothing.
    const forged = await page.request.post(`${pageUrl(created.body.id)}/pay`, { form: { method: 'lahza', outcome: 'succeed', attempt: 'forged1' }, maxRedirects: 0 });
    expect(forged.status()).toBe(303);
    const after = await stack.call('GET', `/api/v1/payment-intents/${created.body.id}`, { key: merchant.live_key! });
    expect(after.body.status).toBe('requires_payment_method');
    await context.close();
  });

  it('in Arabic from Accept-Language, right to left, with a switch back to English', async () => {
    const created = await intent();
    const { context, page } = await tab({ locale: 'ar' });
    await page.goto(pageUrl(created.id));
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    await expect(page.locator('h1').textContent()).resolves.toMatch(/^ادفع إلى/);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-arabic');
    await page.getByRole('link', { name: 'English' }).click();
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    await context.close();
  });

  it('fits a 360 px screen without horizontal scroll', async () => {
    const created = await intent({ description: 'A rather long description of what is being bought, to wrap on a small screen' });
    const { context, page } = await tab({ width: 360 });
    await page.goto(pageUrl(created.id));
    // The merchant's name here is one long word (the test's unique name), as some shop names are.
    const widths = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')) as { scroll: number; client: number };
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(await page.evaluate('(() => { window.scrollTo(1000, 0); return window.scrollX; })()')).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-360');
    await context.close();
  });
});
