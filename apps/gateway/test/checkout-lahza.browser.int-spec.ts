import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort, LahzaStandIn, localCertificate, REPO_ROOT, startStack, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// Paying by card at Lahza from the hosted checkout, in a real browser, against the local stand-in that speaks
// Lahza's protocol over HTTPS: the page sends the customer to Lahza's page, Lahza sends them back with the
// reference, and only a server-side verify decides. Replayed and forged returns, forged notifications, two tabs
// and a provider that does not answer change nothing they should not.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(REPO_ROOT, '.cache', 'screenshots');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SHOP = 'https://shop.example';
const SECRET_KEY = 'sk_standin_checkout_browser';

describe('hosted checkout with lahza in the browser', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let browser: Browser;
  let standIn: LahzaStandIn;
  let lahzaUrl = '';

  const live = (method: string, path: string, body?: object) =>
    stack.call(method, path, { key: merchant.live_key!, body, headers: method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {} });

  async function liveIntent(body: object = {}): Promise<{ id: string }> {
    const res = await live('POST', '/api/v1/payment-intents', { amount: '25.00', currency: 'USD', description: 'A lamp', ...body });
    expect(res.status).toBe(201);
    return res.body;
  }

  /** A tab that may reach the gateway and Lahza's page, nothing else (the shop's site is not reachable here). */
  async function tab(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 800, height: 900 }, ignoreHTTPSErrors: true });
    await context.route((url) => !url.href.startsWith(stack.gatewayUrl) && !url.href.startsWith(lahzaUrl), (route) => route.abort());
    return { context, page: await context.newPage() };
  }

  const pageUrl = (id: string) => `${stack.gatewayUrl}/checkout/${id}`;
  const referenceOf = (url: string) => [...standIn.transactions.values()].find((tx) => url.startsWith(`${lahzaUrl}/pay/${tx.accessCode}`))!.reference;

  async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number }>> {
    await page.evaluate(AXE);
    const result = (await page.evaluate('axe.run()')) as { violations: Array<{ id: string; nodes: unknown[] }> };
    return result.violations.map((v) => ({ id: v.id, nodes: v.nodes.length }));
  }

  async function shot(page: Page, name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** From the checkout page to Lahza's page for this session. */
  async function toLahza(page: Page, id: string, button = 'Pay with Card (Lahza)'): Promise<string> {
    await page.goto(pageUrl(id));
    await Promise.all([page.waitForURL((url) => url.href.startsWith(lahzaUrl)), page.getByRole('button', { name: button }).click()]);
    return referenceOf(page.url());
  }

  async function paymentsOf(id: string): Promise<number> {
    const db = new Client({ connectionString: stack.db.url });
    await db.connect();
    try {
      return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions.payments WHERE source_id = $1`, [id])).rows[0]!.n;
    } finally {
      await db.end();
    }
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (npm test installs it)`);
    const tls = localCertificate();
    standIn = new LahzaStandIn({ secretKey: SECRET_KEY, tls });
    lahzaUrl = await standIn.listen();
    // Lahza sends the customer back to the gateway's public address: the gateway's port is chosen first.
    const gatewayPort = String(await freePort());
    stack = await startStack(
      ['sessions', 'gateway'],
      {
        PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
        LAHZA_BASE_URL: lahzaUrl,
        LAHZA_LIVE_SECRET_KEY: SECRET_KEY,
        LAHZA_TEST_SECRET_KEY: SECRET_KEY,
        LAHZA_TIMEOUT_MS: '1000',
        NODE_EXTRA_CA_CERTS: tls.certPath,
      },
      { gateway: { PORT: gatewayPort } },
    );
    merchant = await stack.createMerchant({ verified: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await standIn?.close();
  });

  beforeEach(() => {
    standIn.delayMs = 0;
  });

  it('pays a live intent at Lahza: page → Lahza → back → verified → success_url; a replayed return changes nothing', async () => {
    const created = await liveIntent({ success_url: `${SHOP}/done` });
    const { context, page } = await tab();
    await page.goto(pageUrl(created.id));
    // Live: the card at its provider and togo as the customer's wallet (no live chain: crypto is not offered).
    expect(await page.locator('.unavailable').allTextContents()).toEqual([]);
    expect(await page.getByRole('heading', { name: 'Pay from your Togo wallet' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Decline with Card (Lahza)' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-lahza-live');
    const reference = await toLahza(page, created.id);
    expect(standIn.transactions.get(reference)).toMatchObject({ amount: 2500, currency: 'USD', callbackUrl: `${pageUrl(created.id)}/return` });
    expect((await live('GET', `/api/v1/payment-intents/${created.id}`)).body.status).toBe('processing');

    const [back] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${pageUrl(created.id)}/return`)),
      page.getByRole('link', { name: 'Pay' }).click(),
    ]);
    expect(back.status()).toBe(303);
    expect(back.headers()['location']).toBe(`${SHOP}/done?session_id=${created.id}`);
    expect((await live('GET', `/api/v1/payment-intents/${created.id}`)).body).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'lahza', fee: '0.38', net_amount: '24.62' });

    // The same return again (a reload, a replay): no second payment.
    const replay = await page.request.get(`${pageUrl(created.id)}/return?reference=${reference}&trxref=${reference}`, { maxRedirects: 0 });
    expect(replay.status()).toBe(303);
    expect(await paymentsOf(created.id)).toBe(1);
    await page.goto(pageUrl(created.id));
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it('declined at Lahza, then paid on the retry on the same Lahza page', async () => {
    const created = await liveIntent();
    const { context, page } = await tab();
    const declined = await toLahza(page, created.id);
    await Promise.all([page.waitForURL(/declined=1$/), page.getByRole('link', { name: 'Decline' }).click()]);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('declined');
    expect((await live('GET', `/api/v1/payment-intents/${created.id}`)).body.status).toBe('failed');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-lahza-declined');
    // A declined card may be retried on the same Lahza page: the same transaction, never a second one.
    const retry = await toLahza(page, created.id);
    expect(retry).toBe(declined);
    await Promise.all([page.waitForURL(pageUrl(created.id)), page.getByRole('link', { name: 'Pay' }).click()]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    expect(standIn.transactions.get(retry)?.status).toBe('success');
    expect(await paymentsOf(created.id)).toBe(1);
    await context.close();
  });

  it('two tabs reach the same Lahza page and pay once; back before paying shows the payment in progress', async () => {
    const created = await liveIntent();
    const first = await tab();
    const second = await tab();
    const [a, b] = await Promise.all([toLahza(first.page, created.id), toLahza(second.page, created.id)]);
    expect(b).toBe(a);
    // A return while Lahza has no outcome yet: in progress, with a way back to Lahza's page.
    await second.page.goto(`${pageUrl(created.id)}/return?reference=${a}`);
    await expect(second.page.locator('h1').textContent()).resolves.toBe('Payment in progress');
    expect(await axeViolations(second.page)).toEqual([]);
    await shot(second.page, 'checkout-lahza-processing');
    await Promise.all([second.page.waitForURL((url) => url.href.startsWith(lahzaUrl)), second.page.getByRole('button', { name: 'Continue the payment' }).click()]);
    expect(referenceOf(second.page.url())).toBe(a);
    await Promise.all([first.page.waitForURL(pageUrl(created.id)), first.page.getByRole('link', { name: 'Pay' }).click()]);
    await Promise.all([second.page.waitForURL(pageUrl(created.id)), second.page.getByRole('link', { name: 'Pay' }).click()]);
    await expect(second.page.locator('h1').textContent()).resolves.toBe('Payment received');
    expect(await paymentsOf(created.id)).toBe(1);
    await first.context.close();
    await second.context.close();
  });

  it('a forged return and a forged notification change nothing; a signed notification is verified and pays', async () => {
    const created = await liveIntent();
    const other = await liveIntent();
    const { context, page } = await tab();
    const reference = await toLahza(page, created.id);
    standIn.complete(reference, 'success');
    // Another session's reference on this session's return address, and a made-up one.
    for (const forged of [`${pageUrl(other.id)}/return?reference=${reference}`, `${pageUrl(created.id)}/return?reference=attMadeUp0000000000000000`]) {
      const res = await page.request.get(forged, { maxRedirects: 0 });
      expect(res.status()).toBe(303);
    }
    expect((await live('GET', `/api/v1/payment-intents/${other.id}`)).body.status).toBe('requires_payment_method');
    expect((await live('GET', `/api/v1/payment-intents/${created.id}`)).body.status).toBe('processing');

    const notificationsUrl = `${stack.gatewayUrl}/providers/lahza/notifications`;
    const body = JSON.stringify({ event: 'charge.success', data: { reference, status: 'success' } });
    const forged = await fetch(notificationsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-lahza-signature': createHmac('sha512', 'a-guessed-key').update(body).digest('hex') },
      body,
    });
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_request', param: 'x-lahza-signature' });
    expect((await live('GET', `/api/v1/payment-intents/${created.id}`)).body.status).toBe('processing');

    // Answered at once; the verify it prompts runs after the answer.
    expect(await standIn.notify(notificationsUrl, reference)).toBe(200);
    await waitFor(async () => (await live('GET', `/api/v1/payment-intents/${created.id}`)).body.status === 'succeeded', 20_000, 'the notified payment to be verified');
    expect(await paymentsOf(created.id)).toBe(1);
    await context.close();
  });

  it('a provider that does not answer: the customer is told, nothing is charged, and the next try works', async () => {
    const created = await liveIntent();
    const { context, page } = await tab();
    await page.goto(pageUrl(created.id));
    standIn.delayMs = 3000;
    await Promise.all([page.waitForURL(/notice=provider_unavailable$/), page.getByRole('button', { name: 'Pay with Card (Lahza)' }).click()]);
    standIn.delayMs = 0;
    await expect(page.getByRole('alert').textContent()).resolves.toContain('could not be reached');
    expect((await live('GET', `/api/v1/payment-intents/${created.id}`)).body.status).toBe('requires_payment_method');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-lahza-unavailable');
    await toLahza(page, created.id);
    await context.close();
  });

  it("a test session offers Lahza's test page beside the sandboxes", async () => {
    const res = await stack.call('POST', '/api/v1/payment-intents', {
      key: merchant.test_key,
      body: { amount: '9.00', currency: 'USD' },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    const { context, page } = await tab();
    await page.goto(pageUrl(res.body.id));
    expect(await page.getByRole('button', { name: 'Pay with Card (Lahza)' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await toLahza(page, res.body.id, "Pay on Card (Lahza)'s test page");
    await Promise.all([page.waitForURL(pageUrl(res.body.id)), page.getByRole('link', { name: 'Pay' }).click()]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    expect((await stack.call('GET', `/api/v1/payment-intents/${res.body.id}`, { key: merchant.test_key })).body).toMatchObject({ status: 'succeeded', payment_method: 'lahza' });
    await context.close();
  });

  // Last: it stops sessions.
  it('with sessions down the page says payment is unavailable (503), never an error dump', async () => {
    const created = await liveIntent();
    await stack.services.sessions!.stop();
    const { context, page } = await tab();
    const res = await page.goto(pageUrl(created.id));
    expect(res?.status()).toBe(503);
    expect(res?.headers()['content-type']).toMatch(/^text\/html/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment is unavailable right now');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
