import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createUser, signIn as signInThroughPage } from './dashboard.harness';
import { freePort, REPO_ROOT, startStack, TestWebhookReceiver, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// The developer page in a real browser: a key made on the page works against the API and is refused within 1 s of
// its revoke; a rolled key keeps working through its overlap; an endpoint added on the page receives the test event,
// whose delivery shows on the page and can be resent; an endpoint moved to another address on its page gets the
// next test event there, signed with the same secret; a viewer has no buttons and its posts are refused; another
// merchant's ids are 404. axe with 0 violations and 360 px screenshots, English and Arabic.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(REPO_ROOT, '.cache', 'screenshots');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** A confirmed user of `merchant` with `role`, signed in through the page. */
async function signIn(page: Page, stack: Stack, merchant: TestMerchant, role: 'owner' | 'developer' | 'viewer'): Promise<void> {
  const user = await createUser(stack, merchant.merchant_id, role);
  await signInThroughPage({ url: stack.gatewayUrl }, page, user.email, user.password);
}

describe('developer page in the browser', () => {
  let stack: Stack;
  let browser: Browser;
  let merchant: TestMerchant;
  let other: TestMerchant;
  const receiver = new TestWebhookReceiver();
  const movedReceiver = new TestWebhookReceiver();

  const whoami = (key: string) => stack.call('GET', '/api/v1/webhook-endpoints', { key });
  const developers = (env: 'test' | 'live' = 'test') => `${stack.gatewayUrl}/dashboard/${env}/developers`;

  async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number }>> {
    await page.evaluate(AXE);
    const result = (await page.evaluate('axe.run()')) as { violations: Array<{ id: string; nodes: unknown[] }> };
    return result.violations.map((v) => ({ id: v.id, nodes: v.nodes.length }));
  }

  async function check(page: Page, name: string): Promise<void> {
    expect(await axeViolations(page)).toEqual([]);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `dashboard-developers-${name}.png`), fullPage: true });
  }

  async function newPage(role: 'owner' | 'developer' | 'viewer', lang: 'en' | 'ar' = 'en', owner = merchant): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 }, locale: lang === 'ar' ? 'ar' : 'en-US', ignoreHTTPSErrors: true });
    await signIn(page, stack, owner, role);
    return page;
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (npm test installs it)`);
    // The gateway's PUBLIC_BASE_URL is its own address: the dashboard's forms are checked against that origin.
    const port = await freePort();
    stack = await startStack(['webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000' }, { gateway: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    merchant = await stack.createMerchant({ verified: true });
    other = await stack.createMerchant();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver.close();
    await movedReceiver.close();
  });

  it('creates a key that works against the API, and revokes it (refused within 1 s)', async () => {
    const page = await newPage('owner');
    await page.goto(developers());
    await check(page, 'keys-en');
    await page.fill('#key-name', 'Browser key');
    await page.click('[data-form="create-key"] button[type=submit]');
    const token = (await page.textContent('[data-secret]'))!.trim();
    await check(page, 'key-created-en');
    expect((await whoami(token)).status).toBe(200);

    const keyId = token.slice('pay_test_'.length).split('.')[0]!;
    await page.goto(`${developers()}/keys/${keyId}/revoke`);
    await check(page, 'revoke-en');
    await page.click('[data-form="revoke-key"] button[type=submit]');
    await page.waitForSelector('[data-notice="key_revoked"]');
    const revokedAt = Date.now();
    await waitFor(async () => (await whoami(token)).status === 401, 1500, 'the revoked key refused', 50);
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(1500);
    await page.close();
  });

  it('rolls a key with an overlap: both keys work, the old one until its expiry', async () => {
    const page = await newPage('developer');
    const keyId = merchant.test_key.slice('pay_test_'.length).split('.')[0]!;
    await page.goto(`${developers()}/keys/${keyId}/roll`);
    await check(page, 'roll-en');
    await page.check('#overlap-1h');
    await page.click('[data-form="roll-key"] button[type=submit]');
    const replacement = (await page.textContent('[data-secret]'))!.trim();
    expect((await whoami(replacement)).status).toBe(200);
    expect((await whoami(merchant.test_key)).status).toBe(200);
    await page.close();
  });

  it('adds an endpoint that receives the test event; its delivery shows, and resend sends it again', async () => {
    const url = await receiver.listen();
    const page = await newPage('owner', 'ar');
    await page.goto(developers());
    await page.fill('#endpoint-url', url);
    await page.click('[data-form="add-endpoint"] button[type=submit]');
    receiver.secret = (await page.textContent('[data-secret]'))!.trim();
    await check(page, 'endpoint-created-ar');
    await page.click('a[href*="/endpoints/"]');
    await page.click('[data-form="test-event"] button[type=submit]');
    await waitFor(async () => receiver.arrivals.length === 1, 15_000, 'the test event arrived');
    await page.waitForSelector('[data-delivery]');
    await check(page, 'endpoint-ar');
    await page.click('[data-form="resend"] button[type=submit]');
    await waitFor(async () => receiver.arrivals.length === 2, 15_000, 'the resent event arrived');
    await page.close();
  });

  it('shows a validation error of the service next to the form, with the form kept', async () => {
    const page = await newPage('owner');
    await page.goto(developers());
    await page.fill('#endpoint-url', 'ftp://example.com/hooks');
    const answer = page.waitForResponse((res) => res.request().method() === 'POST');
    await page.click('[data-form="add-endpoint"] button[type=submit]');
    expect((await answer).status()).toBe(400);
    expect(await page.textContent('[data-error]')).toBeTruthy();
    expect(await page.inputValue('#endpoint-url')).toBe('ftp://example.com/hooks');
    await page.close();
  });

  it('changes an endpoint\'s address and events on its page; a refused address keeps what was typed', async () => {
    const created = await stack.call('POST', '/api/v1/webhook-endpoints', { key: merchant.test_key, body: { url: 'https://93.184.216.34/hooks' } });
    expect(created.status).toBe(201);
    const { id, secret } = created.body as { id: string; secret: string };
    const movedUrl = await movedReceiver.listen();
    movedReceiver.secret = secret;

    const page = await newPage('developer');
    await page.goto(`${developers()}/endpoints/${id}`);
    expect(await page.inputValue('[data-form="update-endpoint"] #endpoint-url')).toBe('https://93.184.216.34/hooks');
    expect(await page.isChecked('#scope-all')).toBe(true);
    await check(page, 'endpoint-change-en');

    await page.fill('#endpoint-url', 'ftp://example.com/hooks');
    const refused = page.waitForResponse((res) => res.request().method() === 'POST');
    await page.click('[data-form="update-endpoint"] button[type=submit]');
    expect((await refused).status()).toBe(400);
    expect(await page.textContent('[data-form="update-endpoint"] [data-error]')).toBeTruthy();
    expect(await page.inputValue('#endpoint-url')).toBe('ftp://example.com/hooks');
    expect((await stack.call('GET', `/api/v1/webhook-endpoints/${id}`, { key: merchant.test_key })).body.url).toBe('https://93.184.216.34/hooks');

    await page.fill('#endpoint-url', movedUrl);
    await page.check('#scope-selected');
    await page.check('input[name="event:invoice.paid"]');
    await page.click('[data-form="update-endpoint"] button[type=submit]');
    await page.waitForSelector('[data-notice="updated"]');
    expect(await page.textContent('dl.fields')).toContain(movedUrl);
    expect((await stack.call('GET', `/api/v1/webhook-endpoints/${id}`, { key: merchant.test_key })).body).toMatchObject({ url: movedUrl, events: ['invoice.paid'] });

    // The next test event goes to the new address, signed with the secret the endpoint was created with.
    await page.click('[data-form="test-event"] button[type=submit]');
    await waitFor(async () => movedReceiver.arrivals.length === 1, 15_000, 'the test event at the new address');
    expect(movedReceiver.rejected).toBe(0);
    await page.close();

    const arabic = await newPage('owner', 'ar');
    await arabic.goto(`${developers()}/endpoints/${id}`);
    expect(await arabic.isChecked('input[name="event:invoice.paid"]')).toBe(true);
    await check(arabic, 'endpoint-change-ar');
    await arabic.close();
  });

  it("gives a viewer no buttons and refuses its posts (403); another merchant's ids are 404", async () => {
    const page = await newPage('viewer');
    await page.goto(developers());
    await check(page, 'viewer-en');
    expect(await page.locator('main form').count()).toBe(0);
    const csrf = await page.getAttribute('header form input[name=_csrf]', 'value');
    const refused = await page.request.post(`${developers()}/keys`, { form: { _csrf: csrf!, name: 'Nope' }, headers: { origin: stack.gatewayUrl } });
    expect(refused.status()).toBe(403);
    const otherKey = other.test_key.slice('pay_test_'.length).split('.')[0]!;
    expect((await page.goto(`${developers()}/keys/${otherKey}/revoke`))!.status()).toBe(404);
    expect((await page.goto(`${developers('live')}/keys/${merchant.test_key.slice('pay_test_'.length).split('.')[0]}/roll`))!.status()).toBe(404);
    await page.close();
  });
});
