import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { HDKey } from 'viem/accounts';
import {
  deployTestToken,
  freePort,
  mineBlocks,
  REPO_ROOT,
  sendToken,
  startAnvil,
  startStack,
  TestWebhookReceiver,
  waitFor,
  type RunningAnvil,
  type Stack,
  type TestMerchant,
} from '@payments/testing';
import { checkPage, createUser, signIn } from './dashboard.harness';
import { isolatedTab, type IsolatedTabOptions } from './support/isolated-tab';

// Live crypto on the hosted checkout in a real browser (Debian's chromium, driven by playwright-core), on a real
// local chain: anvil with a 6- and an 18-decimal test token, the chain watcher process, sessions and the gateway.
// The customer picks a token, sees the deposit address, the exact amount, the QR code and the time left, sends
// the token, and the page moves on by itself once the transfer has its confirmations (or on "Check again" without
// JavaScript). Phone-sized, English and Arabic, every state checked by axe-core. Screenshots go to .cache/screenshots/.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(REPO_ROOT, '.cache', 'screenshots');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const CHAIN_ID = 31_337;
const CONFIRMATIONS = 2;

describe('hosted checkout: live crypto in the browser', () => {
  let anvil: RunningAnvil;
  let usdt: `0x${string}`;
  let dai: `0x${string}`;
  let stack: Stack;
  let merchant: TestMerchant;
  let browser: Browser;
  const receiver = new TestWebhookReceiver();

  const api = (method: string, path: string, body?: object) =>
    stack.call(method, path, { key: merchant.test_key, body, headers: method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {} });

  async function intent(amount = '10.00') {
    const res = await api('POST', '/api/v1/payment-intents', { amount, currency: 'USD', description: 'Two mugs', success_url: 'https://shop.example/done' });
    expect(res.status).toBe(201);
    return res.body as { id: string; checkout_url: string };
  }

  /** A 360 px tab that records any request leaving the gateway (the page must make none). */
  const tab = (options: IsolatedTabOptions = {}) => isolatedTab(browser, stack.gatewayUrl, { width: 360, height: 780, ...options });

  const pageUrl = (id: string) => `${stack.gatewayUrl}/checkout/${id}`;

  async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number }>> {
    await page.evaluate(AXE);
    const result = (await page.evaluate('axe.run()')) as { violations: Array<{ id: string; nodes: unknown[] }> };
    return result.violations.map((v) => ({ id: v.id, nodes: v.nodes.length }));
  }

  /** No horizontal scroll on the phone-sized screen. */
  async function fits(page: Page): Promise<void> {
    const widths = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')) as { scroll: number; client: number };
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  }

  async function shot(page: Page, name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** A transfer from the chain's funded account, then the blocks that give it its confirmations. */
  async function pay(token: `0x${string}`, to: string, units: bigint): Promise<`0x${string}`> {
    const hash = await sendToken(anvil.rpcUrl, token, to as `0x${string}`, units);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    return hash;
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (npm test installs it)`);
    anvil = await startAnvil({ chainId: CHAIN_ID });
    usdt = await deployTestToken(anvil.rpcUrl, { name: 'Test Tether', symbol: 'USDT', decimals: 6 });
    dai = await deployTestToken(anvil.rpcUrl, { name: 'Test Dai', symbol: 'DAI', decimals: 18 });
    const chains = [
      { name: 'anvil', chain_id: CHAIN_ID, rpc_url: anvil.rpcUrl, confirmations: CONFIRMATIONS, environments: ['test'], tokens: [{ symbol: 'USDT', address: usdt, decimals: 6 }, { symbol: 'DAI', address: dai, decimals: 18 }] },
    ];
    const crypto = { CRYPTO_CHAINS: JSON.stringify(chains), CRYPTO_XPUB_TEST: HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'").publicExtendedKey };
    const receiverUrl = await receiver.listen();
    // The gateway at its own PUBLIC_BASE_URL: the dashboard's forms are checked against that origin.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The crypto settings go to sessions and its watcher only: the gateway shows what sessions answers.
    stack = await startStack(
      ['sessions', 'ledger', 'webhook-dispatcher', 'chain-watcher', 'gateway'],
      { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000', PUBLIC_BASE_URL: base },
      { sessions: crypto, 'chain-watcher': { ...crypto, CHAIN_POLL_INTERVAL_MS: '100', CHAIN_RETRY_MAX_MS: '500' }, gateway: { PORT: String(port) } },
    );
    merchant = await stack.createMerchant({ verified: true });
    const endpoint = await api('POST', '/api/v1/webhook-endpoints', { url: receiverUrl });
    receiver.secret = endpoint.body.secret;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await anvil?.stop();
    await receiver.close();
  });

  it('choose USDT: address, exact amount, QR and time left; part paid, then more than due: the page follows by itself to the receipt', async () => {
    const created = await intent('10.00');
    const { context, page, foreign } = await tab();
    await page.goto(pageUrl(created.id));
    // A configured test chain replaces the crypto sandbox with the real choice.
    expect(await page.getByRole('button', { name: 'Send part of it with Digital currency' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /on anvil$/ }).allTextContents()).toEqual(['Pay with USDT on anvil', 'Pay with DAI on anvil']);
    expect(await axeViolations(page)).toEqual([]);
    await fits(page);
    await shot(page, 'checkout-crypto-choice');

    await Promise.all([page.waitForURL(/\/crypto\?network=31337&token=0x/), page.getByRole('button', { name: 'Pay with USDT on anvil' }).click()]);
    const withAddress = (await api('GET', `/api/v1/payment-intents/${created.id}`)).body;
    const address = withAddress.crypto.address as string;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await page.locator('#deposit-address').textContent()).toBe(address);
    expect(await page.locator('#crypto-amount').textContent()).toBe('10.00 USDT');
    await expect(page.locator('h2').textContent()).resolves.toBe('Send 10.00 USDT');
    expect(await page.locator('dd', { hasText: 'anvil (chain ID 31337)' }).count()).toBe(1);
    expect(await page.locator('code', { hasText: usdt }).count()).toBe(1);
    expect(await page.getByRole('img', { name: 'QR code for your wallet app: 10.00 USDT to the deposit address' }).count()).toBe(1);
    await expect(page.locator('#time-left').textContent()).resolves.toMatch(/^\d+ min \d{2} s$/);
    // With script, the copy button shows.
    expect(await page.getByRole('button', { name: 'Copy the address' }).isVisible()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await fits(page);
    await shot(page, 'checkout-crypto-deposit');

    // 4.00 arrives: once confirmed the page shows what came and asks for the rest.
    await pay(usdt, address, 4_000_000n);
    await page.locator('h2', { hasText: 'Send 6.00 USDT' }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('status').first().textContent()).resolves.toBe('Received 4.00 USD; 6.00 USD still due.');
    expect(await page.locator('#crypto-amount').textContent()).toBe('6.00 USDT');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-crypto-partial');

    // 7.00 more: 1.00 over. The page goes to the receipt, which says so.
    const hash = await pay(usdt, address, 7_000_000n);
    await page.locator('h1', { hasText: 'Payment received' }).waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(pageUrl(created.id));
    await expect(page.locator('.note').textContent()).resolves.toMatch(/^1\.00 USD more than due was received/);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-crypto-paid');
    const paid = (await api('GET', `/api/v1/payment-intents/${created.id}`)).body;
    expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'crypto', crypto: { address, received_amount: '11.00', remaining_amount: '0.00', overpayment_amount: '1.00', txid: hash } });
    await waitFor(() => receiver.arrivals.some((v) => v.webhook.type === 'payment_intent.succeeded' && v.objectId === created.id), 30_000, 'the signed webhook');
    expect(foreign).toEqual([]);
    await context.close();

    // The merchant's dashboard shows the overpayment and the transfer.
    const user = await createUser(stack, merchant.merchant_id, 'viewer');
    const board = await tab();
    await signIn({ url: stack.gatewayUrl }, board.page, user.email, user.password);
    await board.page.goto(`${stack.gatewayUrl}/dashboard/test/payment-intents/${created.id}`);
    expect(await board.page.locator('[data-overpayment]').textContent()).toBe('1.00 USD');
    expect(await board.page.locator('[data-txid]').textContent()).toBe(hash);
    await fits(board.page);
    await checkPage(board.page, 'crypto-intent');
    await board.context.close();
  });

  it('in Arabic, right to left: DAI (18 decimals), paid exactly, the receipt in Arabic', async () => {
    const created = await intent('12.50');
    const { context, page } = await tab({ locale: 'ar' });
    await page.goto(pageUrl(created.id));
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-crypto-choice-arabic');
    await Promise.all([page.waitForURL(/\/crypto\?/), page.getByRole('button', { name: 'ادفع بعملة DAI على شبكة anvil' }).click()]);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await expect(page.locator('h2').textContent()).resolves.toBe('أرسل 12.50 DAI');
    expect(await page.locator('#crypto-amount').textContent()).toBe('12.50 DAI');
    expect(await page.getByRole('img').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await fits(page);
    await shot(page, 'checkout-crypto-deposit-arabic');
    const address = (await page.locator('#deposit-address').textContent())!;
    await pay(dai, address, 12_500_000_000_000_000_000n);
    await page.locator('h1', { hasText: 'تم استلام الدفعة' }).waitFor({ timeout: 30_000 });
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'checkout-crypto-paid-arabic');
    expect((await api('GET', `/api/v1/payment-intents/${created.id}`)).body).toMatchObject({ status: 'succeeded', crypto: { received_amount: '12.50', overpayment_amount: '0.00' } });
    await context.close();
  });

  it('without JavaScript: the choice is a form, the page is the server\'s, "Check again" shows the receipt once confirmed', async () => {
    const created = await intent('3.00');
    const { context, page } = await tab({ javaScript: false });
    await page.goto(pageUrl(created.id));
    await Promise.all([page.waitForURL(/\/crypto\?/), page.getByRole('button', { name: 'Pay with USDT on anvil' }).click()]);
    await expect(page.locator('#time-left').textContent()).resolves.toMatch(/^\d+ min \d{2} s$/);
    // The copy button needs script: it stays hidden.
    expect(await page.getByRole('button', { name: 'Copy the address' }).count()).toBe(0);
    const address = (await page.locator('#deposit-address').textContent())!;
    // A second choice (another tab, a resubmit) is the same address.
    await page.goto(pageUrl(created.id));
    await Promise.all([page.waitForURL(/\/crypto\?/), page.getByRole('button', { name: 'Pay with DAI on anvil' }).click()]);
    expect(await page.locator('#deposit-address').textContent()).toBe(address);
    await pay(dai, address, 3_000_000_000_000_000_000n);
    await waitFor(async () => (await api('GET', `/api/v1/payment-intents/${created.id}`)).body.status === 'succeeded', 30_000, 'the transfer counted');
    await Promise.all([page.waitForURL(pageUrl(created.id)), page.getByRole('link', { name: 'Check again' }).click()]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Payment received');
    await context.close();
  });
});
