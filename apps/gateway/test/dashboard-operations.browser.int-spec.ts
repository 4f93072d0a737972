import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { formatMoney, parseMoneyString } from '@payments/money';
import { TestWebhookReceiver, waitFor, type TestMerchant } from '@payments/testing';
import { axeViolations, checkPage, createUser, newTab, shot, signIn, startDashboardStack, type DashboardStack } from './dashboard.harness';

// The operations views through the gateway's real routes, signed in through the page: a refund from a payment's page
// (partial, reviewed, confirmed) shows on the payment, in the refunds list and in the balance, and arrives as a
// signed refund.* webhook; a double submit is one refund; a viewer cannot refund; ids changed in the URL (another
// merchant's, the other environment's) are 404; filters, paging, search, the live/test switch and CSV in the
// browser; axe with 0 violations and 360 px screenshots of every operations page in English and Arabic.
describe('operations views in the browser', () => {
  let dashboard: DashboardStack;
  let merchant: TestMerchant;
  let other: TestMerchant;
  const receiver = new TestWebhookReceiver();
  const tabs: BrowserContext[] = [];

  /** A payment of `merchant` made through the API (intent + simulated success), with its intent. */
  const paid = new Map<string, { paymentId: string; intentId: string }>();
  let bulkIntents: string[] = [];
  let formulaIntent = '';
  let invoiceId = '';
  let foreign: { paymentId: string; intentId: string; invoiceId: string; refundId: string; transactionId: string };

  const FORMULA_REF = '=HYPERLINK("http://evil.example","x")';

  async function post(path: string, body: object, key = merchant.test_key): Promise<Record<string, any>> {
    const res = await dashboard.stack.call('POST', path, { key, body, headers: { 'Idempotency-Key': randomUUID() } });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  const get = async (path: string, key = merchant.test_key) => (await dashboard.stack.call('GET', path, { key })).body;

  async function payment(amount: string, key = merchant.test_key, extra: object = {}): Promise<{ paymentId: string; intentId: string }> {
    const intent = await post('/api/v1/payment-intents', { amount, currency: 'USD', ...extra }, key);
    const done = await post(`/api/v1/payment-intents/${intent.id}/simulate`, { result: 'succeeded', method: 'togo' }, key);
    return { paymentId: done.payment_id as string, intentId: intent.id as string };
  }

  const at = (path: string, env: 'test' | 'live' = 'test') => `${dashboard.url}/dashboard/${env}/${path}`;

  async function signedIn(role: 'owner' | 'developer' | 'viewer', locale?: string): Promise<Page> {
    const user = await createUser(dashboard.stack, merchant.merchant_id, role);
    const { context, page } = await newTab(dashboard, locale ? { locale } : {});
    tabs.push(context);
    await signIn(dashboard, page, user.email, user.password);
    return page;
  }

  const cents = (money: string) => {
    const parsed = parseMoneyString(money.replace(/\s*USD$/, '').trim(), { minCents: Number.MIN_SAFE_INTEGER });
    if (!parsed.ok) throw new Error(`not money: ${money}`);
    return parsed.cents;
  };

  async function availableOnPage(page: Page): Promise<string> {
    await page.goto(at('balance'));
    return (await page.locator('[data-balance-available]').first().textContent())!.trim();
  }

  /** The refund form filled and reviewed, in `lang`: answers on the confirmation step. */
  async function reviewRefund(page: Page, paymentId: string, amount: string, lang: 'en' | 'ar'): Promise<void> {
    await page.goto(`${at(`payments/${paymentId}/refund`)}?lang=${lang}`);
    await page.locator('input[name=mode][value=partial]').check();
    await page.locator('#refund-amount').fill(amount);
    await page.locator('#refund-reason').fill('damaged in transit');
    await Promise.all([page.waitForURL(/\/refund$/), page.locator('main form[method=post] button[type=submit]').first().click()]);
    await page.locator('[data-refund-confirm]').waitFor();
  }

  beforeAll(async () => {
    const receiverUrl = await receiver.listen();
    dashboard = await startDashboardStack(['sessions', 'ledger', 'refunds', 'webhook-dispatcher', 'gateway']);
    merchant = await dashboard.stack.createMerchant({ verified: true });
    other = await dashboard.stack.createMerchant({ verified: true });
    receiver.secret = (await post('/api/v1/webhook-endpoints', { url: receiverUrl })).secret;

    for (const [name, amount] of [['refund', '20.00'], ['double', '9.00'], ['viewer', '11.00'], ['small', '3.21'], ['large', '654.32']] as const) {
      paid.set(name, await payment(amount));
    }
    formulaIntent = (await post('/api/v1/payment-intents', { amount: '5.00', currency: 'USD', external_ref: FORMULA_REF })).id;
    // More than a page (25) of intents under one reference: the list pages.
    bulkIntents = [];
    for (let i = 0; i < 27; i += 1) bulkIntents.push((await post('/api/v1/payment-intents', { amount: '1.00', currency: 'USD', external_ref: 'bulk-page' })).id);
    const invoice = await post('/api/v1/invoices', { amount: '15.00', currency: 'USD', external_ref: 'inv-a' });
    await post(`/api/v1/invoices/${invoice.id}/simulate`, { result: 'paid' });
    invoiceId = invoice.id;

    const theirs = await payment('30.00', other.test_key);
    const theirInvoice = await post('/api/v1/invoices', { amount: '15.00', currency: 'USD' }, other.test_key);
    // The refunds service learns payments from their events: a refund of theirs once it knows the payment.
    let theirRefund: Record<string, any> | undefined;
    await waitFor(async () => {
      const res = await dashboard.stack.call('POST', `/api/v1/payments/${theirs.paymentId}/refunds`, { key: other.test_key, body: { amount: '1.00' }, headers: { 'Idempotency-Key': `r-${theirs.paymentId}` } });
      if (res.status === 201 || res.status === 200) theirRefund = res.body;
      return theirRefund !== undefined;
    }, 30_000, "the other merchant's refund");
    let transactionId = '';
    await waitFor(async () => {
      transactionId = (await get('/api/v1/balance-transactions', other.test_key)).data?.[0]?.id ?? '';
      return transactionId !== '';
    }, 30_000, "the other merchant's balance transaction");
    foreign = { ...theirs, invoiceId: theirInvoice.id, refundId: theirRefund!.id, transactionId };
    // The paid invoice is a payment too.
    await waitFor(async () => (await get('/api/v1/payments?limit=100')).data?.length === paid.size + 1, 30_000, 'the payments to reach the refunds service');
  }, 240_000);

  afterAll(async () => {
    for (const context of tabs) await context.close().catch(() => undefined);
    await dashboard?.stop();
    await receiver.close();
  });

  it("refunds part of a payment from its page: on the payment, in the refunds list, in the balance (down by the refund), as a signed refund.* webhook", async () => {
    const { paymentId } = paid.get('refund')!;
    const page = await signedIn('developer');
    // The ledger records payments from their events: the balance before is the one that no longer moves.
    let before = '';
    await waitFor(async () => {
      const first = await availableOnPage(page);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      before = await availableOnPage(page);
      return first === before && cents(before) > 0;
    }, 30_000, 'the balance to settle');

    // Payments → the payment → Refund.
    await page.goto(at('payments'));
    await Promise.all([page.waitForURL(new RegExp(`/payments/${paymentId}$`)), page.locator(`a[href$="/payments/${paymentId}"]`).click()]);
    await Promise.all([page.waitForURL(/\/refund$/), page.locator('[data-refund-button]').click()]);
    await checkPage(page, 'ops-refund-form');

    // The review step in Arabic, then in English (the one confirmed).
    await reviewRefund(page, paymentId, '7.50', 'ar');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'ops-refund-confirm-ar');
    await reviewRefund(page, paymentId, '7.50', 'en');
    expect(await page.locator('[data-refund-confirm]').textContent()).toContain('7.50');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'ops-refund-confirm-en');
    await Promise.all([page.waitForURL(/\?refunded=re_/), page.locator('form:has(input[name=step][value=confirm]) button[type=submit]').click()]);

    const refund = (await get(`/api/v1/payments/${paymentId}`)).refunds as Array<{ id: string; amount: string }>;
    expect(refund).toHaveLength(1);
    expect(refund[0]!.amount).toBe('7.50');
    const refundId = refund[0]!.id;
    expect(await page.locator('[data-refund-done]').textContent()).toContain(refundId);
    expect(await page.locator(`main a[href$="/refunds/${refundId}"]`).count()).toBe(1);

    // In the refunds list, and its own page.
    await page.goto(at('refunds'));
    await Promise.all([page.waitForURL(new RegExp(`/refunds/${refundId}$`)), page.locator(`a[href$="/refunds/${refundId}"]`).click()]);
    expect(await page.locator('h1').textContent()).toContain(refundId);

    // The signed webhook (the receiver checks the signature with the endpoint's secret).
    await waitFor(async () => receiver.arrivals.some((a) => a.webhook.type.startsWith('refund.') && a.objectId === refundId), 30_000, 'a signed refund.* webhook');

    // The balance went down by exactly the refund, and its transaction is listed.
    const expected = formatMoney(cents(before) - 750);
    await waitFor(async () => (await availableOnPage(page)).startsWith(`${expected} `), 30_000, `the balance at ${expected} (was ${before})`);
    await page.goto(`${at('balance')}?type=refund`);
    expect(await page.locator('main table tbody').textContent()).toContain('-7.50 USD');
    expect(await page.locator('main table tbody').textContent()).toContain(refundId);
  }, 120_000);

  it('makes one refund of a confirmation posted twice with the same fields', async () => {
    const { paymentId } = paid.get('double')!;
    const page = await signedIn('owner');
    await page.goto(at(`payments/${paymentId}/refund`));
    const form = {
      _csrf: await page.locator('main form input[name=_csrf]').inputValue(),
      idempotency_key: await page.locator('input[name=idempotency_key]').inputValue(),
      mode: 'partial',
      amount: '2.00',
      step: 'confirm',
    };
    const send = () => page.context().request.post(at(`payments/${paymentId}/refund`), { form, headers: { origin: dashboard.url }, maxRedirects: 0 });
    const [first, second] = await Promise.all([send(), send()]);
    const third = await send();
    expect([first.status(), second.status(), third.status()]).toEqual([303, 303, 303]);
    expect(second.headers()['location']).toBe(first.headers()['location']);
    expect(third.headers()['location']).toBe(first.headers()['location']);
    const refunds = (await get(`/api/v1/payments/${paymentId}`)).refunds as Array<{ amount: string }>;
    expect(refunds.map((r) => r.amount)).toEqual(['2.00']);
  }, 60_000);

  it('shows a viewer the payments without a refund button, and refuses its refund post (403) with nothing refunded', async () => {
    const { paymentId } = paid.get('viewer')!;
    const page = await signedIn('viewer');
    await page.goto(at('payments'));
    expect(await page.locator(`a[href$="/payments/${paymentId}"]`).count()).toBe(1);
    const shown = await page.goto(at(`payments/${paymentId}`));
    expect(shown!.status()).toBe(200);
    expect(await page.locator('[data-refund-button]').count()).toBe(0);
    expect((await page.goto(at(`payments/${paymentId}/refund`)))!.status()).toBe(403);

    await page.goto(at(`payments/${paymentId}`));
    const csrf = await page.locator('header form input[name=_csrf]').inputValue();
    const form = { _csrf: csrf, idempotency_key: `dashboard_refund_${'a'.repeat(32)}`, mode: 'full', step: 'confirm' };
    const refused = await page.context().request.post(at(`payments/${paymentId}/refund`), { form, headers: { origin: dashboard.url }, maxRedirects: 0 });
    expect(refused.status()).toBe(403);
    expect((await get(`/api/v1/payments/${paymentId}`)).refunds).toEqual([]);
  }, 60_000);

  it("answers 404 for another merchant's or the other environment's ids, and never shows their data", async () => {
    const page = await signedIn('owner');
    const notFound = async (url: string) => {
      const res = await page.goto(url);
      const body = await page.content();
      return { url, status: res!.status(), leaks: [foreign.paymentId, foreign.intentId, foreign.invoiceId, foreign.refundId, foreign.transactionId].filter((id) => body.includes(id) && !url.includes(id)) };
    };
    const mine = paid.get('small')!;
    for (const url of [
      at(`payments/${foreign.paymentId}`),
      at(`payments/${foreign.paymentId}/refund`),
      at(`payment-intents/${foreign.intentId}`),
      at(`invoices/${foreign.invoiceId}`),
      at(`refunds/${foreign.refundId}`),
      at(`payments/${mine.paymentId}`, 'live'),
      at(`payment-intents/${mine.intentId}`, 'live'),
      at(`invoices/${invoiceId}`, 'live'),
      at(`payments/${paid.get('refund')!.paymentId}/refund`, 'live'),
    ]) {
      expect(await notFound(url)).toEqual({ url, status: 404, leaks: [] });
    }
    // A page of a list after another merchant's id is not found either (the owners refuse the cursor); the export
    // starts at the newest whatever the URL says: never their rows.
    const theirIds = [foreign.paymentId, foreign.intentId, foreign.invoiceId, foreign.refundId, foreign.transactionId];
    for (const [section, id] of [
      ['payments', foreign.paymentId],
      ['payment-intents', foreign.intentId],
      ['invoices', foreign.invoiceId],
      ['refunds', foreign.refundId],
      ['balance', foreign.transactionId],
    ] as const) {
      expect(await notFound(`${at(section)}?starting_after=${id}`)).toEqual({ url: `${at(section)}?starting_after=${id}`, status: 404, leaks: [] });
      const csv = await page.context().request.get(`${at(`${section}/export.csv`)}?starting_after=${id}`);
      expect([section, csv.status()]).toEqual([section, 200]);
      const text = await csv.text();
      for (const theirs of theirIds) expect(text).not.toContain(theirs);
    }
    expect((await notFound(`${at('balance')}?ending_before=${foreign.transactionId}`)).status).toBe(404);
  }, 60_000);

  it('filters by status and amount, pages, searches by id and switches to live (empty)', async () => {
    const page = await signedIn('owner');
    const { paymentId: small } = paid.get('small')!;
    const { paymentId: large } = paid.get('large')!;

    // Amount range in the filter form.
    await page.goto(at('payments'));
    await page.locator('#filter-amount_min').fill('600');
    await page.locator('#filter-amount_max').fill('700');
    await Promise.all([page.waitForURL(/amount_min=600/), page.locator('form[aria-labelledby=filters-heading] button[type=submit]').click()]);
    const rows = () => page.locator('main table tbody tr a[href*="/payments/"]').allTextContents();
    expect(await rows()).toEqual([large]);

    // Status: the refunded payment is partially refunded.
    await page.goto(at('payments'));
    await page.locator('#filter-status').selectOption('partially_refunded');
    await Promise.all([page.waitForURL(/status=partially_refunded/), page.locator('form[aria-labelledby=filters-heading] button[type=submit]').click()]);
    const partial = await rows();
    expect(partial).toContain(paid.get('refund')!.paymentId);
    expect(partial).not.toContain(small);

    // Paging: 27 intents under one reference are 25 and then 2.
    await page.goto(`${at('payment-intents')}?external_ref=bulk-page`);
    const intentRows = () => page.locator('main table tbody tr a[href*="/payment-intents/"]').allTextContents();
    const first = await intentRows();
    expect(first).toEqual([...bulkIntents].reverse().slice(0, 25));
    await Promise.all([page.waitForURL(/starting_after=/), page.locator('a[rel=next]').click()]);
    expect(await intentRows()).toEqual([...bulkIntents].reverse().slice(25));
    expect(await page.locator('a[rel=next]').count()).toBe(0);
    expect(page.url()).toContain('external_ref=bulk-page');

    // The search box goes to the object's page (from any list, by the id's shape).
    await page.goto(at('refunds'));
    await page.locator('#search-id').fill(small);
    await Promise.all([page.waitForURL(new RegExp(`/payments/${small}$`)), page.locator('form[role=search] button[type=submit]').click()]);
    expect(await page.locator('h1').textContent()).toContain(small);

    // The live/test switch keeps the section and changes the list: live has nothing.
    await page.goto(at('payments'));
    expect(await rows()).toContain(small);
    await Promise.all([page.waitForURL(/\/dashboard\/live\/payments$/), page.locator('[data-switch-environment=live]').click()]);
    expect(await page.locator('[data-environment]').getAttribute('data-environment')).toBe('live');
    expect(await page.locator('main table').count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain('Nothing here yet.');
  }, 60_000);

  it('downloads the CSV export of a filtered list, with formula-like text kept as text', async () => {
    const page = await signedIn('viewer');
    await page.goto(`${at('payment-intents')}?amount_min=5&amount_max=5`);
    const link = page.locator('a[href*="export.csv"]');
    const href = (await link.getAttribute('href'))!;
    expect(href).toBe('/dashboard/test/payment-intents/export.csv?amount_max=5&amount_min=5');
    const response = await page.context().request.get(`${dashboard.url}${href}`);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers()['content-disposition']).toMatch(/^attachment; filename="payment-intents-test-\d{4}-\d{2}-\d{2}\.csv"$/);

    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^payment-intents-test-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('id,amount,currency,fee,net_amount,status,payment_method,external_ref,description,created_at,paid_at,payment_id');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${formulaIntent},5\\.00,USD,`));
    // The reference starts with "=": a quote mark keeps it text in a spreadsheet.
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);

    // The payments export: every payment of the merchant (the paid invoice's too), a row each.
    const payments = (await (await page.context().request.get(at('payments/export.csv'))).text()).split('\r\n').filter(Boolean);
    expect(payments[0]).toBe('id,amount,refunded_amount,fee,net,currency,status,method,source,created_at');
    expect(payments).toHaveLength(paid.size + 2);
    const sources = payments.slice(1).map((line) => line.split(','));
    expect(sources.map((row) => row[0])).toEqual(expect.arrayContaining([...paid.values()].map((p) => p.paymentId)));
    expect(sources.map((row) => row[8])).toContain(invoiceId);
  }, 60_000);

  it('passes axe at 360 px in English and Arabic on every operations page', async () => {
    const page = await signedIn('owner', 'en-US');
    const refundId = ((await get(`/api/v1/payments/${paid.get('refund')!.paymentId}`)).refunds as Array<{ id: string }>)[0]!.id;
    const { paymentId, intentId } = paid.get('refund')!;
    for (const [path, name] of [
      ['payments', 'ops-payments'],
      ['payments?status=bogus&amount_min=x', 'ops-payments-filter-problems'],
      [`payments/${paymentId}`, 'ops-payment'],
      [`payments/${paid.get('small')!.paymentId}/refund`, 'ops-refund-form-fresh'],
      ['payment-intents', 'ops-payment-intents'],
      [`payment-intents/${intentId}`, 'ops-payment-intent'],
      ['invoices', 'ops-invoices'],
      [`invoices/${invoiceId}`, 'ops-invoice'],
      ['refunds', 'ops-refunds'],
      [`refunds/${refundId}`, 'ops-refund'],
      ['balance', 'ops-balance'],
    ] as const) {
      const res = await page.goto(at(path));
      expect([path, res!.status()]).toEqual([path, 200]);
      if (name === 'ops-invoice') {
        // The masked phone keeps its order in Arabic; the checkout link leads to this gateway.
        expect(await page.locator('dd span[dir=ltr]', { hasText: '***' }).count()).toBe(1);
        expect(await page.locator(`dd a[href="${dashboard.url}/checkout/${invoiceId}"]`).count()).toBe(1);
      }
      await checkPage(page, name);
      expect([name, await page.evaluate('document.documentElement.scrollWidth')]).toEqual([name, 360]);
    }
    // An empty list, the live environment, and a refund refused by the service (more than remains).
    await page.goto(at('payments', 'live'));
    await checkPage(page, 'ops-payments-live');
    await page.goto(at('payments/pay_nope'));
    await checkPage(page, 'ops-not-found');
    await reviewRefund(page, paid.get('small')!.paymentId, '99.00', 'en');
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.locator('form:has(input[name=step][value=confirm]) button[type=submit]').click()]);
    expect(answer.status()).toBe(409);
    await page.locator('[data-refund-problem]').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'ops-refund-refused-en');
  }, 180_000);
});
