import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { BrowserContext, Page } from 'playwright-core';
import { createHash } from 'node:crypto';
import { freePort, LahzaStandIn, localCertificate, REPO_ROOT, waitFor, type ReceivedMail, type TestMerchant } from '@payments/testing';
import { axeViolations, checkPage, shot, startDashboardStack, type DashboardStack } from './dashboard.harness';

// Customer wallets (togo) in a real browser: sign in on the checkout with the e-mailed code, pay from the wallet,
// the wallet page and its statement, in English and Arabic at 360 px with axe-core, and the protections of a
// wallet that is a key to money (form tokens, origins, expiry); the flows that move money through the ledger's wallet
// commands and sessions' wallet payments (operator credit, pay, decline, card top-up at the Lahza stand-in, refund).

const SHOP = 'https://shop.example';
const SECRET_KEY = 'sk_standin_wallet_browser';
const CLI = join(REPO_ROOT, 'dist', 'apps', 'gateway', 'src', 'admin', 'cli.js');

describe('customer wallets on the checkout', () => {
  let dashboard: DashboardStack;
  let merchant: TestMerchant;
  let standIn: LahzaStandIn;
  let lahzaUrl = '';
  let redis: Redis;
  const contexts: BrowserContext[] = [];

  const url = () => dashboard.url;
  const pageUrl = (id: string) => `${url()}/checkout/${id}`;
  const newAddress = (tag: string) => `${tag}.${randomBytes(4).toString('hex')}@Example.com`;

  async function intent(body: object = {}, key = merchant.test_key): Promise<{ id: string; available_methods: string[] }> {
    const res = await dashboard.stack.call('POST', '/api/v1/payment-intents', {
      key,
      body: { amount: '40.00', currency: 'USD', description: 'Two mugs', success_url: `${SHOP}/done`, ...body },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function tab(options: { locale?: string } = {}): Promise<Page> {
    // Lahza's stand-in serves a local certificate (the services trust it through NODE_EXTRA_CA_CERTS).
    const context = await dashboard.browser.newContext({
      viewport: { width: 360, height: 800 },
      ignoreHTTPSErrors: true,
      ...(options.locale ? { locale: options.locale, extraHTTPHeaders: { 'accept-language': options.locale } } : {}),
    });
    const page = await context.newPage();
    contexts.push(context);
    // Only the gateway and Lahza's page: the shop's site is not reachable here.
    await context.route((u) => !u.href.startsWith(url()) && !(lahzaUrl && u.href.startsWith(lahzaUrl)), (route) => route.abort());
    return page;
  }

  /**
   * The code of the next wallet code mail to the address, as the SMTP server received it (the outbox keeps no sent
   * text). Each code asked for is read once: a mail already read is not taken again.
   */
  const readMails = new Set<ReceivedMail>();
  async function mailedCode(email: string): Promise<string> {
    const to = email.toLowerCase();
    const mail = await dashboard.smtp.waitFor((m) => !readMails.has(m) && m.to.some((t) => t.toLowerCase() === to) && /^\d{6}$/m.test(m.text), 10_000);
    readMails.add(mail);
    return /^(\d{6})$/m.exec(mail.text)![1]!;
  }

  /** On a page with the wallet's e-mail form: asks for a code, types it; answers when signed in. */
  async function signInHere(page: Page, email: string): Promise<void> {
    await page.locator('#wallet-email').fill(email);
    await page.locator('form[action$="/code"] button[type=submit]').first().click();
    await page.locator('#wallet-code').waitFor();
    await page.locator('#wallet-code').fill(await mailedCode(email));
    await page.locator('form[action$="/sign-in"] button[type=submit]').click();
    await page.locator('form[action$="/sign-out"]').waitFor();
  }

  async function paymentsOf(id: string): Promise<number> {
    const rows = (await (await dashboard.stack.db.dataSource('sessions')).query(`SELECT count(*)::int AS n FROM sessions.payments WHERE source_id = $1`, [id])) as Array<{ n: number }>;
    return rows[0]!.n;
  }

  /** The wallet session's Redis key for this browser's cookie (the cookie itself is HTTP-only: not readable by the page). */
  async function sessionKey(page: Page): Promise<string> {
    const cookie = (await page.context().cookies()).find((c) => c.name === '__Host-wallet_session');
    if (!cookie) throw new Error('no wallet session cookie');
    return `wallet:session:${createHash('sha256').update(cookie.value).digest('base64url')}`;
  }

  function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const env = {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: dashboard.stack.db.url,
        LEDGER_URL: dashboard.stack.services.ledger?.commandUrl ?? 'tcp://127.0.0.1:1',
        LOG_LEVEL: 'warn',
      };
      execFile(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  }

  /** The CLI's --json answer; its stderr in the failure otherwise. */
  async function adminJson(...args: string[]): Promise<Record<string, unknown>> {
    const result = await admin(...args, '--json');
    if (result.code !== 0) throw new Error(`admin ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  beforeAll(async () => {
    const tls = localCertificate();
    standIn = new LahzaStandIn({ secretKey: SECRET_KEY, tls });
    lahzaUrl = await standIn.listen();
    dashboard = await startDashboardStack(['ledger', 'sessions', 'refunds', 'gateway'], {
      LAHZA_BASE_URL: lahzaUrl,
      LAHZA_TEST_SECRET_KEY: SECRET_KEY,
      LAHZA_TIMEOUT_MS: '2000',
      NODE_EXTRA_CA_CERTS: tls.certPath,
    });
    merchant = await dashboard.stack.createMerchant({ verified: true });
    const config = (await import('../src/config')).GATEWAY_DEFAULTS as Record<string, unknown>;
    redis = new Redis(String(process.env.REDIS_URL ?? config.REDIS_URL ?? 'redis://127.0.0.1:6379'));
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    redis?.disconnect();
    await dashboard?.stop();
    await standIn?.close();
  });

  it('signs in on a test checkout with the e-mailed code; every step passes axe in English and Arabic at 360 px', async () => {
    const created = await intent();
    const page = await tab();
    await page.goto(pageUrl(created.id));
    // Test mode keeps its sandbox buttons beside the wallet.
    expect(await page.getByRole('button', { name: 'Pay with Togo balance' }).count()).toBe(1);
    await expect(page.getByRole('heading', { name: 'Pay from your Togo wallet' }).count()).resolves.toBe(1);
    await checkPage(page, 'wallet-checkout-email');

    const email = newAddress('Layla');
    await page.locator('#wallet-email').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.locator('#wallet-code').waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain(email.toLowerCase());
    await checkPage(page, 'wallet-checkout-code');

    // A wrong code is refused with a message; the right one signs in.
    const code = await mailedCode(email);
    await page.locator('#wallet-code').fill(String((Number(code) + 1) % 1_000_000).padStart(6, '0'));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('That code is not right');
    await page.locator('#wallet-code').fill(code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.locator('form[action$="/sign-out"]').waitFor();
    expect(await page.locator('.wallet').textContent()).toContain(`Signed in as ${email.toLowerCase()}`);
    expect(await page.getByRole('button', { name: 'Pay 40.00 USD from your wallet' }).count()).toBe(1);
    await checkPage(page, 'wallet-checkout-signed-in');

    // The cookie: HTTP-only, Secure, SameSite=Lax, host-only at /.
    const cookie = (await page.context().cookies()).find((c) => c.name === '__Host-wallet_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    expect(await page.evaluate('document.cookie')).not.toContain('wallet_session');
    // Nothing paid by signing in.
    expect(await paymentsOf(created.id)).toBe(0);
  });

  it('the wallet page: sign in there too, the profile, the statement and the top-up form, in English and Arabic', async () => {
    const page = await tab();
    await page.goto(`${url()}/wallet/test`);
    expect(await axeViolations(page)).toEqual([]);
    await signInHere(page, newAddress('Omar'));
    await page.locator('#name').fill('Omar Haddad');
    await page.locator('#phone').fill('+970 59 123 4567');
    await page.locator('#country').fill('ps');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByText('Your details are saved.').waitFor();
    expect(await page.locator('#country').inputValue()).toBe('PS');
    await checkPage(page, 'wallet-page');
    // Bad details are refused with a message, nothing stored.
    await page.locator('#phone').fill('call me');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.locator('#phone').inputValue()).toBe('+970 59 123 4567');
    // Live and test wallets are apart: signed in to test, the live page asks for a sign-in.
    await page.goto(`${url()}/wallet/live`);
    expect(await page.locator('#wallet-email').count()).toBe(1);
    await page.goto(`${url()}/wallet/nowhere`);
    expect(await page.title()).toBeTruthy();
  });

  it('refuses a form without the session token or from another origin: nothing is paid', async () => {
    const created = await intent();
    const page = await tab();
    await page.goto(pageUrl(created.id));
    await signInHere(page, newAddress('Sami'));
    const token = await page.locator('form[action$="/wallet/pay"] input[name=_csrf]').inputValue();
    const pay = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      page.request.post(`${pageUrl(created.id)}/wallet/pay`, { form: { attempt: randomBytes(6).toString('hex'), ...form }, headers, maxRedirects: 0 });
    expect((await pay({})).status()).toBe(403);
    expect((await pay({ _csrf: 'forged' })).status()).toBe(403);
    expect((await pay({ _csrf: token }, { origin: 'https://evil.example' })).status()).toBe(403);
    expect((await pay({ _csrf: token }, { referer: 'https://evil.example/page' })).status()).toBe(403);
    // Another browser's session token is not this one's.
    const stranger = await tab();
    await stranger.goto(pageUrl(created.id));
    expect((await stranger.request.post(`${pageUrl(created.id)}/wallet/pay`, { form: { _csrf: token, attempt: 'a1' }, maxRedirects: 0 })).status()).toBe(403);

    // A shop's page elsewhere that posts the pay form by itself (the wallet cookie is SameSite=Lax: the browser keeps
    // it off a cross-site post, and the origin and token are checked anyway).
    const evilPort = await freePort();
    const evil: Server = createServer((_, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id="f" method="post" action="${pageUrl(created.id)}/wallet/pay"><input name="attempt" value="evil1"><input name="_csrf" value="${token}"></form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(evilPort, '127.0.0.1', resolve));
    try {
      await page.context().route(`http://localhost:${evilPort}/**`, (route) => route.continue());
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${pageUrl(created.id)}/wallet/pay`),
        page.goto(`http://localhost:${evilPort}/`).catch(() => undefined),
      ]);
      expect(response.status()).toBe(403);
      await shot(page, 'wallet-refused');
    } finally {
      evil.close();
    }
    expect(await paymentsOf(created.id)).toBe(0);
    // The sign-in forms are protected the same way.
    expect((await page.request.post(`${url()}/wallet/test/code`, { form: { email: 'x@example.com' }, maxRedirects: 0 })).status()).toBe(403);
  });

  it('the sign-in ends after 15 idle minutes and an hour after it began: then the pay form is refused', async () => {
    const created = await intent();
    const page = await tab();
    await page.goto(pageUrl(created.id));
    await signInHere(page, newAddress('Nour'));
    const token = await page.locator('form[action$="/wallet/pay"] input[name=_csrf]').inputValue();
    const key = await sessionKey(page);
    // Redis holds it for the idle time, renewed by each request.
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);

    // Signed in an hour ago (however active since): signed out.
    const session = JSON.parse((await redis.get(key))!) as { wallets: { test: { signedInAt: number } } };
    session.wallets.test.signedInAt -= 60 * 60_000;
    await redis.set(key, JSON.stringify(session), 'KEEPTTL');
    await page.reload();
    expect(await page.locator('#wallet-email').count()).toBe(1);
    expect((await page.request.post(`${pageUrl(created.id)}/wallet/pay`, { form: { _csrf: token, attempt: 'late1' }, maxRedirects: 0 })).status()).toBe(403);

    // Idle: the key lapses in Redis.
    await page.goto(pageUrl(created.id));
    await signInHere(page, newAddress('Nour2'));
    const idleKey = await sessionKey(page);
    await redis.pexpire(idleKey, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await page.reload();
    expect(await page.locator('#wallet-email').count()).toBe(1);
    expect(await paymentsOf(created.id)).toBe(0);
  });

  it('signs out', async () => {
    const page = await tab();
    await page.goto(`${url()}/wallet/test`);
    await signInHere(page, newAddress('Rami'));
    const key = await sessionKey(page);
    await page.getByRole('button', { name: 'Sign out of the wallet' }).click();
    await page.locator('#wallet-email').waitFor();
    expect(await redis.exists(key)).toBe(0);
  });

  describe('with the ledger and sessions serving wallets', () => {
    async function walletBalance(email: string, env = 'test'): Promise<string> {
      return String((await adminJson('wallet', 'show', '--email', email, '--env', env)).balance);
    }

    async function merchantAvailable(): Promise<string> {
      const res = await dashboard.stack.call('GET', '/api/v1/balance', { key: merchant.test_key });
      return (res.body as { available: Array<{ amount: string }> }).available[0]?.amount ?? '0.00';
    }

    const cents = (money: string) => Math.round(Number(money) * 100);

    it('operator credit (idempotent by key) → sign in → pay → success_url; merchant grows by the net, wallet shrinks by the amount', async () => {
      const email = newAddress('Huda');
      const credited = await adminJson('wallet', 'credit', '--email', email, '--amount', '100', '--key', 'promo-1', '--env', 'test', '--description', 'Welcome credit');
      expect(credited).toMatchObject({ wallet_id: expect.stringMatching(/^wal_test_/), email: email.toLowerCase(), created: true, balance: '100.00' });
      const again = await adminJson('wallet', 'credit', '--email', email, '--amount', '100', '--key', 'promo-1', '--env', 'test', '--description', 'Welcome credit');
      expect(again).toMatchObject({ wallet_id: credited.wallet_id, posting_id: credited.posting_id, created: false, balance: '100.00' });
      // The same key for another credit is the ledger's refusal, shown to the operator.
      const reused = await admin('wallet', 'credit', '--email', email, '--amount', '5', '--key', 'promo-1', '--env', 'test');
      expect(reused).toMatchObject({ code: 1, stderr: expect.stringContaining('use a new key') });

      const before = await merchantAvailable();
      const created = await intent();
      const page = await tab();
      await page.goto(pageUrl(created.id));
      await signInHere(page, email);
      expect(await page.locator('.wallet dd').textContent()).toContain('100.00 USD');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${pageUrl(created.id)}/wallet/pay`),
        page.getByRole('button', { name: 'Pay 40.00 USD from your wallet' }).click(),
      ]);
      expect(response.status()).toBe(303);
      expect(response.headers()['location']).toBe(`${SHOP}/done?session_id=${created.id}`);
      const paid = (await dashboard.stack.call('GET', `/api/v1/payment-intents/${created.id}`, { key: merchant.test_key })).body;
      expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'togo' });
      expect(await walletBalance(email)).toBe('60.00');
      await waitFor(async () => cents(await merchantAvailable()) - cents(before) === cents(paid.net_amount), 20_000, 'the merchant balance to grow by the net');
      // A bad amount or a missing key is refused by the CLI before anything is sent.
      expect((await admin('wallet', 'credit', '--email', email, '--amount', '-5', '--key', 'k', '--env', 'test')).code).toBe(1);
      expect((await admin('wallet', 'credit', '--email', 'nobody', '--amount', '5', '--key', 'k')).code).toBe(1);
      expect(await paymentsOf(created.id)).toBe(1);
    });

    it('a pay click is one command to sessions (no read of the session first); an unknown session is the not-found page, a session without togo goes back unpaid', async () => {
      const email = newAddress('Rami');
      await adminJson('wallet', 'credit', '--email', email, '--amount', '100', '--key', 'k1', '--env', 'test');
      const created = await intent();
      const page = await tab();
      await page.goto(pageUrl(created.id));
      await signInHere(page, email);
      const token = await page.locator('form[action$="/wallet/pay"] input[name=_csrf]').inputValue();
      const pay = (id: string) => page.request.post(`${pageUrl(id)}/wallet/pay`, { form: { _csrf: token, attempt: randomBytes(6).toString('hex') }, maxRedirects: 0 });
      const sessionsCommands = async () => {
        const text = await (await fetch(`${dashboard.stack.services.gateway!.opsUrl}/metrics`)).text();
        const count = (command: string) =>
          text.split('\n').filter((l) => l.startsWith('rpc_round_trip_seconds_count{') && l.includes(`command="sessions.${command}"`)).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
        return { get: count('checkout.get'), pay: count('checkout.pay-from-wallet') };
      };

      const before = await sessionsCommands();
      const paid = await pay(created.id);
      expect(paid.status()).toBe(303);
      expect(paid.headers()['location']).toBe(`${SHOP}/done?session_id=${created.id}`);
      expect(await sessionsCommands()).toEqual({ get: before.get, pay: before.pay + 1 });
      expect(await paymentsOf(created.id)).toBe(1);

      // A session id of the right shape that is nobody's: the checkout's not-found page, nothing charged.
      const unknown = await pay('pi_test_NoSuchSession0000000000');
      expect(unknown.status()).toBe(404);
      expect(await unknown.text()).toContain('<html');
      // A session the shop did not open to wallets: back to its page, unpaid; an id not of ours: not found.
      const cardOnly = await intent({ methods: ['lahza'] });
      const refused = await pay(cardOnly.id);
      expect(refused.status()).toBe(303);
      expect(refused.headers()['location']).toBe(`/checkout/${cardOnly.id}`);
      expect(await paymentsOf(cardOnly.id)).toBe(0);
      expect((await pay('pi_elsewhere_123')).status()).toBe(404);
      expect(await walletBalance(email)).toBe('60.00');
    });

    it('an invoice paid from the wallet reports method wallet with the profile as payer, the phone masked', async () => {
      const email = newAddress('Yara');
      await adminJson('wallet', 'credit', '--email', email, '--amount', '50.00', '--key', 'k1', '--env', 'test');
      const created = await dashboard.stack.call('POST', '/api/v1/invoices', {
        key: merchant.test_key,
        body: { amount: '20.00', currency: 'USD', external_ref: `ref-${randomBytes(4).toString('hex')}`, description: 'Consulting', success_url: `${SHOP}/ok` },
        headers: { 'Idempotency-Key': randomUUID() },
      });
      expect(created.status).toBe(201);
      const page = await tab();
      await page.goto(`${url()}/wallet/test?return_to=${created.body.id}`);
      await signInHere(page, email);
      await page.locator('#name').fill('Yara Nasser');
      await page.locator('#phone').fill('+970 59 123 4567');
      await page.locator('#country').fill('PS');
      await page.getByRole('button', { name: 'Save details' }).click();
      await page.getByText('Your details are saved.').waitFor();
      await page.getByRole('link', { name: 'Back to your payment' }).click();
      await page.getByRole('button', { name: 'Pay 20.00 USD from your wallet' }).click();
      await page.waitForURL((u) => u.href.startsWith(SHOP)).catch(() => undefined);
      const invoice = (await dashboard.stack.call('GET', `/api/v1/invoices/${created.body.id}`, { key: merchant.test_key })).body;
      expect(invoice).toMatchObject({
        status: 'paid',
        payment: { method: 'wallet', payer_name: 'Yara Nasser', payer_email: email.toLowerCase(), payer_phone: '+97059•••4567', payer_country: 'PS' },
      });
      expect(await walletBalance(email)).toBe('30.00');
    });

    it('not enough balance → declined with a top-up link → top up by card at Lahza → pay on the same session', async () => {
      const email = newAddress('Karim');
      await admin('wallet', 'credit', '--email', email, '--amount', '10.00', '--key', 'k1', '--env', 'test');
      const created = await intent();
      const page = await tab();
      await page.goto(pageUrl(created.id));
      await signInHere(page, email);
      await page.getByRole('button', { name: 'Pay 40.00 USD from your wallet' }).click();
      await page.getByText('Not enough balance').waitFor();
      expect(await page.locator('.wallet .alert').textContent()).toContain('10.00 USD');
      await checkPage(page, 'wallet-checkout-insufficient');
      expect(await walletBalance(email)).toBe('10.00');

      await page.getByRole('link', { name: 'Top up your wallet' }).click();
      await page.locator('#amount').fill('50.00');
      await Promise.all([page.waitForURL((u) => u.href.startsWith(lahzaUrl)), page.getByRole('button', { name: 'Top up', exact: true }).click()]);
      await Promise.all([page.waitForURL((u) => u.href.startsWith(pageUrl(created.id))), page.getByRole('link', { name: 'Pay' }).click()]);
      expect(await walletBalance(email)).toBe('60.00');
      await page.getByRole('button', { name: 'Pay 40.00 USD from your wallet' }).click();
      await page.waitForURL((u) => u.href.startsWith(SHOP)).catch(() => undefined);
      expect((await dashboard.stack.call('GET', `/api/v1/payment-intents/${created.id}`, { key: merchant.test_key })).body.status).toBe('succeeded');
      expect(await walletBalance(email)).toBe('20.00');
    });

    it('the statement shows the credit, the top-up, the payment and a refund back in the wallet, in English and Arabic', async () => {
      const email = newAddress('Dina');
      await admin('wallet', 'credit', '--email', email, '--amount', '30.00', '--key', 'k1', '--env', 'test', '--description', 'Goodwill');
      const created = await intent({ amount: '12.00' });
      const page = await tab();
      await page.goto(pageUrl(created.id));
      await signInHere(page, email);
      await page.getByRole('button', { name: 'Pay 12.00 USD from your wallet' }).click();
      await page.waitForURL((u) => u.href.startsWith(SHOP)).catch(() => undefined);
      const paid = (await dashboard.stack.call('GET', `/api/v1/payment-intents/${created.id}`, { key: merchant.test_key })).body;
      const refund = await dashboard.stack.call('POST', `/api/v1/payments/${paid.payment_id}/refunds`, { key: merchant.test_key, body: { amount: '5.00' }, headers: { 'Idempotency-Key': randomUUID() } });
      expect(refund.status).toBeLessThan(300);
      await waitFor(async () => (await walletBalance(email)) === '23.00', 30_000, 'the refund back in the wallet');
      await page.goto(`${url()}/wallet/test`);
      const statement = await page.locator('.statement').textContent();
      expect(statement).toContain('Credit');
      expect(statement).toContain('Goodwill');
      expect(statement).toContain('Payment to');
      expect(statement).toContain('Refund from');
      expect(statement).toContain('−12.00 USD');
      expect(statement).toContain('+5.00 USD');
      await checkPage(page, 'wallet-statement');
    });
  });
});
