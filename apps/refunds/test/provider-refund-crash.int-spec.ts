import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CLAIM_LEASE_MS } from '@payments/platform';
import { freePort, LahzaStandIn, startService, startStack, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// The background check's claim on a refund pending at Lahza, with the services run from dist and the refunds service
// killed (SIGKILL) while it asks about the refund: the claim is a short lease the living instance renews, so the
// refund is due again within the lease, and the restarted instance completes it as the dead one would have: one
// refund at the provider, counted once.
describe('provider refund check after a crash', () => {
  const SECRET_KEY = 'sk_standin_refund_crash';
  let standIn: LahzaStandIn;
  let stack: Stack;
  let merchant: TestMerchant;
  let db: Client;

  const live = (method: string, path: string, body?: object) =>
    stack.call(method, path, { key: merchant.live_key!, body, headers: method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {} });
  const stored = async (id: string) =>
    (await db.query<{ status: string; next_check_at: Date | null; checks: number }>('SELECT status, next_check_at, checks FROM refunds.refunds WHERE id = $1', [id])).rows[0]!;

  /** A live intent paid at Lahza through the hosted checkout, as a customer pays it. */
  async function paidAtLahza(amount: string): Promise<{ paymentId: string; reference: string }> {
    const intent = (await live('POST', '/api/v1/payment-intents', { amount, currency: 'USD' })).body;
    const pay = await fetch(`${stack.gatewayUrl}/checkout/${intent.id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `method=lahza&attempt=${randomUUID()}`,
      redirect: 'manual',
    });
    expect(pay.status).toBe(303);
    const location = pay.headers.get('location')!;
    const reference = [...standIn.transactions.values()].find((tx) => location.endsWith(`/pay/${tx.accessCode}`))!.reference;
    standIn.complete(reference, 'success');
    expect((await fetch(`${stack.gatewayUrl}/checkout/${intent.id}/return?reference=${reference}`, { redirect: 'manual' })).status).toBe(303);
    const paid = (await live('GET', `/api/v1/payment-intents/${intent.id}`)).body;
    expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'lahza' });
    return { paymentId: paid.payment_id, reference };
  }

  beforeAll(async () => {
    standIn = new LahzaStandIn({ secretKey: SECRET_KEY });
    const lahzaUrl = await standIn.listen();
    const gatewayPort = String(await freePort());
    stack = await startStack(
      ['sessions', 'refunds', 'gateway'],
      { PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`, RATE_LIMIT_TEST_PER_SEC: '10000' },
      {
        gateway: { PORT: gatewayPort },
        // A question about a refund may take long (the stand-in holds it): the check holds its claim all that time.
        sessions: { LAHZA_BASE_URL: lahzaUrl, LAHZA_LIVE_SECRET_KEY: SECRET_KEY, LAHZA_TIMEOUT_MS: '20000' },
        refunds: { SESSIONS_TIMEOUT_MS: '20000', PROVIDER_REFUND_CHECK_INTERVAL_MS: '200' },
      },
    );
    merchant = await stack.createMerchant({ verified: true });
    db = new Client({ connectionString: stack.db.url });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await standIn?.close();
  });

  it('an instance killed while it asks about a refund holds it no longer than the lease; the restarted one completes it once', async () => {
    const { paymentId, reference } = await paidAtLahza('40.00');
    const made = await live('POST', `/api/v1/payments/${paymentId}/refunds`, { amount: '10.00' });
    expect(made.body).toMatchObject({ status: 'pending' });
    const refundId: string = made.body.id;
    const atLahza = standIn.refunds.filter((r) => r.transaction === reference);
    expect(atLahza).toEqual([expect.objectContaining({ amount: 1000, status: 'pending' })]);

    // Asked about many times already (its next turn would be 5 min away), due now, and the provider slow to answer.
    const asked = `GET /refund/${atLahza[0]!.id}`;
    const askedBefore = standIn.count(asked);
    standIn.delayMs = 10_000;
    await db.query(`UPDATE refunds.refunds SET checks = 8, next_check_at = now() WHERE id = $1`, [refundId]);
    await waitFor(() => standIn.count(asked) === askedBefore + 1, 20_000, 'the background check to ask about the refund');
    // Held over a few leases: the living owner renews its claim (and asks once).
    await new Promise((resolve) => setTimeout(resolve, 3 * CLAIM_LEASE_MS));
    const renewedAfter = Date.now();
    expect((await stored(refundId)).next_check_at!.getTime()).toBeGreaterThan(renewedAfter);
    expect(standIn.count(asked)).toBe(askedBefore + 1);
    // Then it dies mid-question.
    const refunds = stack.services.refunds!;
    const killedAt = Date.now();
    await refunds.kill();

    // What the dead instance held runs out within the lease (before: it was pushed to the refund's next turn).
    const held = await stored(refundId);
    expect(held.next_check_at!.getTime()).toBeLessThanOrEqual(killedAt + CLAIM_LEASE_MS);
    expect(held).toMatchObject({ status: 'pending', checks: 8 });

    // Lahza processed it meanwhile; the restarted instance's check learns it and completes the refund, once.
    standIn.delayMs = 0;
    standIn.processRefunds();
    stack.services.refunds = await startService('refunds', refunds.env);
    await waitFor(async () => (await stored(refundId)).status === 'completed', 30_000, 'the restarted instance to complete the refund');
    expect((await live('GET', `/api/v1/refunds/${refundId}`)).body).toMatchObject({ status: 'completed', amount: '10.00' });
    expect((await live('GET', `/api/v1/payments/${paymentId}`)).body).toMatchObject({ refunded_amount: '10.00', status: 'partially_refunded' });
    expect(standIn.count('POST /refund')).toBe(1);
    expect(standIn.refunds.filter((r) => r.transaction === reference)).toEqual([expect.objectContaining({ amount: 1000, status: 'processed' })]);
  }, 120_000);
});
