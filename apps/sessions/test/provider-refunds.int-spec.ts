import { createHmac } from 'node:crypto';
import { LahzaStandIn } from '@payments/testing';
import { newRefundId } from '@payments/ids';
import { codeOf, createHarness, intentCommand, type SessionsHarness } from './support/sessions-harness';

// Refunds of provider payments at the provider (Lahza), for the refunds service, against the local stand-in on a
// real database: the provider is asked once per refund id whatever is sent again, its outcome is fetched until it
// is final, and a request whose answer was lost is found in the provider's list before anything is sent again.
describe('provider refunds (lahza)', () => {
  const secretKey = 'sk_standin_provider_refunds';
  const TIMEOUT_MS = 600;
  let standIn: LahzaStandIn;
  let h: SessionsHarness;
  const merchant = 'acct_provider_refunds';
  const scope = { merchantId: merchant, environment: 'live' as const };

  /** A live intent of 74.00 paid at the stand-in; its payment id and the transaction's reference. */
  async function paidAtLahza(): Promise<{ paymentId: string; reference: string }> {
    const intent = await h.intents.create(intentCommand(merchant, { environment: 'live' }), 'req_pr');
    const { redirect_url } = await h.providerPayments.start(intent.id, 'lahza');
    const reference = [...standIn.transactions.values()].find((tx) => redirect_url.endsWith(`/pay/${tx.accessCode}`))!.reference;
    standIn.complete(reference, 'success');
    expect(await h.providerPayments.confirm(intent.id, reference)).toMatchObject({ outcome: 'succeeded' });
    const paid = await h.intents.get({ merchant_id: merchant, environment: 'live', id: intent.id });
    return { paymentId: paid.payment_id!, reference };
  }

  const refund = (paymentId: string, refundId: string, amountCents: number) => h.providerRefunds.refund({ scope, paymentId, refundId, amountCents });
  const row = async (refundId: string) =>
    (
      await h.dataSource.query(`SELECT status, failure_reason, provider_refund_id, requests FROM ${h.sessions.table('provider_refunds')} WHERE refund_id = $1`, [refundId])
    )[0] as { status: string; failure_reason: string | null; provider_refund_id: string | null; requests: number };
  const refundPosts = () => standIn.count('POST /refund');

  beforeAll(async () => {
    standIn = new LahzaStandIn({ secretKey });
    const base = await standIn.listen();
    h = await createHarness({ env: { LAHZA_BASE_URL: base, LAHZA_LIVE_SECRET_KEY: secretKey, LAHZA_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });

  afterAll(async () => {
    await h.close();
    await standIn.close();
  });

  beforeEach(() => {
    standIn.delayMs = 0;
    standIn.unavailable = false;
  });

  it('asks the provider once per refund id, however often and however concurrently it is sent, and follows it to processed', async () => {
    const { paymentId, reference } = await paidAtLahza();
    const id = newRefundId();
    const posts = refundPosts();
    expect(await refund(paymentId, id, 2000)).toEqual({ refund_id: id, status: 'pending', reason: null });
    expect(standIn.refunds.filter((r) => r.transaction === reference)).toEqual([expect.objectContaining({ amount: 2000, status: 'pending' })]);
    // Sent again (its answer lost), ten times at once: what is known, asked of the provider by its refund id.
    const again = await Promise.all(Array.from({ length: 10 }, () => refund(paymentId, id, 2000)));
    expect(again.map((a) => a.status)).toEqual(Array(10).fill('pending'));
    expect(refundPosts()).toBe(posts + 1);
    expect(standIn.refunds.filter((r) => r.transaction === reference)).toHaveLength(1);

    // Ten sends of a fresh refund id at once: still one request to the provider.
    const other = newRefundId();
    const raced = await Promise.all(Array.from({ length: 10 }, () => refund(paymentId, other, 1000)));
    expect(new Set(raced.map((a) => a.status))).toEqual(new Set(['pending']));
    expect(refundPosts()).toBe(posts + 2);
    expect(standIn.refunds.filter((r) => r.transaction === reference).map((r) => r.amount)).toEqual([2000, 1000]);

    standIn.processRefunds();
    expect(await h.providerRefunds.status(scope, id)).toEqual({ refund_id: id, status: 'completed', reason: null });
    expect(await refund(paymentId, other, 1000)).toEqual({ refund_id: other, status: 'completed', reason: null });
    expect(await row(id)).toMatchObject({ status: 'completed', provider_refund_id: String(standIn.refunds.find((r) => r.transaction === reference)!.id), requests: 1 });
    // Final: nothing more is asked of the provider.
    const asked = standIn.requests.length;
    expect((await h.providerRefunds.status(scope, id)).status).toBe('completed');
    expect(standIn.requests.length).toBe(asked);
    expect(refundPosts()).toBe(posts + 2);
  });

  it('a refund the provider fails is failed with its reason; a refund it refuses fails at once in its words', async () => {
    const { paymentId } = await paidAtLahza();
    const failing = newRefundId();
    await refund(paymentId, failing, 3000);
    standIn.failRefund(standIn.refunds.at(-1)!.id, 'Insufficient merchant balance');
    expect(await h.providerRefunds.status(scope, failing)).toEqual({ refund_id: failing, status: 'failed', reason: 'Insufficient merchant balance' });
    expect(await row(failing)).toMatchObject({ status: 'failed', failure_reason: 'Insufficient merchant balance' });

    // All of it, then a cent more: the provider refuses the second, so nothing was made and it failed.
    expect((await refund(paymentId, newRefundId(), 7400)).status).toBe('pending');
    const refused = newRefundId();
    expect(await refund(paymentId, refused, 1)).toEqual({ refund_id: refused, status: 'failed', reason: 'Refund amount cannot be more than the transaction amount' });
  });

  it('refuses what it cannot refund: no provider payment, another merchant\'s, a refund id sent for another amount, more than paid', async () => {
    const { paymentId } = await paidAtLahza();
    expect(await codeOf(refund('123456789', newRefundId(), 100))).toBe('not_found');
    expect(await codeOf(h.providerRefunds.refund({ scope: { merchantId: 'acct_other', environment: 'live' }, paymentId, refundId: newRefundId(), amountCents: 100 }))).toBe('not_found');
    expect(await codeOf(h.providerRefunds.refund({ scope: { merchantId: merchant, environment: 'test' }, paymentId, refundId: newRefundId(), amountCents: 100 }))).toBe('not_found');
    expect(await codeOf(refund(paymentId, newRefundId(), 7401))).toBe('invalid_request');
    const id = newRefundId();
    await refund(paymentId, id, 500);
    expect(await codeOf(refund(paymentId, id, 600))).toBe('invalid_request');
    expect(await codeOf(h.providerRefunds.status({ merchantId: 'acct_other', environment: 'live' }, id))).toBe('not_found');
    expect(await codeOf(h.providerRefunds.status(scope, newRefundId()))).toBe('not_found');
  });

  it('a request whose answer was lost (timeout) is found in the provider\'s list, never sent twice', async () => {
    const { paymentId, reference } = await paidAtLahza();
    const posts = refundPosts();
    const id = newRefundId();
    standIn.delayMs = TIMEOUT_MS * 2;
    expect((await refund(paymentId, id, 2500)).status).toBe('pending');
    // The provider made it, answering too late.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 2));
    standIn.delayMs = 0;
    expect(standIn.refunds.filter((r) => r.transaction === reference)).toHaveLength(1);
    expect((await row(id)).provider_refund_id).toBeNull();
    expect((await h.providerRefunds.status(scope, id)).status).toBe('pending');
    expect(await row(id)).toMatchObject({ provider_refund_id: String(standIn.refunds.at(-1)!.id), requests: 1 });
    // Long after, sent again: still the one refund.
    expect((await h.clock.shifted(10 * 60_000, () => refund(paymentId, id, 2500))).status).toBe('pending');
    standIn.processRefunds();
    expect((await h.providerRefunds.status(scope, id)).status).toBe('completed');
    expect(refundPosts()).toBe(posts + 1);
    expect(standIn.refunds.filter((r) => r.transaction === reference)).toHaveLength(1);
  });

  it('a request that never reached the provider is sent at the next check; one that may have is sent again only once the provider has long not listed it', async () => {
    const { paymentId, reference } = await paidAtLahza();
    // The provider is down (connection refused): nothing reached it.
    await standIn.close();
    const down = newRefundId();
    expect((await refund(paymentId, down, 1000)).status).toBe('pending');
    await standIn.listen();
    const posts = refundPosts();
    expect((await h.providerRefunds.status(scope, down)).status).toBe('pending');
    expect(refundPosts()).toBe(posts + 1);
    expect(standIn.refunds.filter((r) => r.transaction === reference).map((r) => r.amount)).toEqual([1000]);

    // The provider's servers fail (503): the request may have been made, so it is looked for, not sent again at once.
    standIn.unavailable = true;
    const failing = newRefundId();
    expect((await refund(paymentId, failing, 2000)).status).toBe('pending');
    standIn.unavailable = false;
    expect((await h.providerRefunds.status(scope, failing)).status).toBe('pending');
    expect((await h.clock.shifted(30_000, () => h.providerRefunds.status(scope, failing))).status).toBe('pending');
    expect(refundPosts()).toBe(posts + 2);
    expect(await row(failing)).toMatchObject({ provider_refund_id: null, requests: 1 });
    // A minute on, still not in the provider's list: it never arrived, and is sent again, once.
    expect((await h.clock.shifted(61_000, () => h.providerRefunds.status(scope, failing))).status).toBe('pending');
    expect((await h.clock.shifted(61_000, () => h.providerRefunds.status(scope, failing))).status).toBe('pending');
    expect(refundPosts()).toBe(posts + 3);
    expect(await row(failing)).toMatchObject({ provider_refund_id: expect.any(String), requests: 2 });
    expect(standIn.refunds.filter((r) => r.transaction === reference).map((r) => r.amount)).toEqual([1000, 2000]);
  });

  it('a refund whose 2xx answer is cut off is pending, found in the transaction\'s list and followed to processed: never failed, never asked twice', async () => {
    const { paymentId, reference } = await paidAtLahza();
    const posts = refundPosts();
    const id = newRefundId();
    standIn.cutOff.add('POST /refund');
    expect(await refund(paymentId, id, 7400)).toEqual({ refund_id: id, status: 'pending', reason: null });
    const made = standIn.refunds.filter((r) => r.transaction === reference);
    expect(made).toEqual([expect.objectContaining({ amount: 7400, status: 'pending' })]);
    expect((await h.providerRefunds.status(scope, id)).status).toBe('pending');
    expect(await row(id)).toMatchObject({ status: 'pending', provider_refund_id: String(made[0]!.id), requests: 1 });
    standIn.processRefunds();
    expect(await h.providerRefunds.status(scope, id)).toEqual({ refund_id: id, status: 'completed', reason: null });
    expect(refundPosts()).toBe(posts + 1);
  });

  it('a request sent again and refused because the first one worked stays pending until the list shows it; a refusal the list never explains stands', async () => {
    const { paymentId, reference } = await paidAtLahza();
    const posts = refundPosts();
    const id = newRefundId();
    // The first request is made at Lahza, its answer lost, and Lahza's list is slow to show it.
    standIn.cutOff.add('POST /refund');
    standIn.unlisted = true;
    expect((await refund(paymentId, id, 7400)).status).toBe('pending');
    // Long after, still not listed: sent again, and refused ("more than the transaction": the first one worked).
    expect((await h.clock.shifted(61_000, () => h.providerRefunds.status(scope, id))).status).toBe('pending');
    expect(refundPosts()).toBe(posts + 2);
    expect(await row(id)).toMatchObject({ status: 'pending', provider_refund_id: null, requests: 2 });
    // Listed at last: it is the first request's refund.
    standIn.unlisted = false;
    expect((await h.providerRefunds.status(scope, id)).status).toBe('pending');
    expect(await row(id)).toMatchObject({ provider_refund_id: String(standIn.refunds.filter((r) => r.transaction === reference)[0]!.id) });
    standIn.processRefunds();
    expect((await h.providerRefunds.status(scope, id)).status).toBe('completed');
    expect(refundPosts()).toBe(posts + 2);

    // A request sent again, refused, that the list never explains (nothing was made): failed in the provider's words
    // once the list has long not shown it.
    const other = await paidAtLahza();
    const never = newRefundId();
    standIn.unavailable = true;
    expect((await refund(other.paymentId, never, 1000)).status).toBe('pending');
    standIn.unavailable = false;
    standIn.report(other.reference, 'failed');
    expect((await h.clock.shifted(61_000, () => h.providerRefunds.status(scope, never))).status).toBe('pending');
    expect(await row(never)).toMatchObject({ status: 'pending', requests: 2 });
    expect(await h.clock.shifted(122_000, () => h.providerRefunds.status(scope, never))).toEqual({ refund_id: never, status: 'failed', reason: 'Transaction not refundable' });
  });

  it('a signed refund notification is a hint: the refund is asked of the provider at once and answered settled; a forged one does nothing', async () => {
    const { paymentId, reference } = await paidAtLahza();
    const id = newRefundId();
    await refund(paymentId, id, 700);
    const made = standIn.refunds.at(-1)!;
    standIn.processRefunds();
    const body = Buffer.from(JSON.stringify({ event: 'refund.processed', data: { id: made.id, status: 'processed', transaction_reference: reference, amount: 700 } }));
    const forged = createHmac('sha512', 'not-the-key').update(body).digest('hex');
    expect(await h.providerPayments.notification('lahza', body, forged)).toEqual({ accepted: false });
    expect((await row(id)).status).toBe('pending');
    const signed = createHmac('sha512', secretKey).update(body).digest('hex');
    // The refunds the provider settled are named, for the refunds service to be told at once.
    const settledOne = [{ refund_id: id, merchant_id: merchant, environment: 'live' }];
    expect(await h.providerPayments.notification('lahza', body, signed)).toEqual({ accepted: true, refunds: settledOne });
    expect((await row(id)).status).toBe('completed');
    // Again: nothing pending is left for it, so nothing is named.
    expect(await h.providerPayments.notification('lahza', body, signed)).toEqual({ accepted: true });
    // One naming only the transaction reaches its pending refunds too.
    const second = newRefundId();
    await refund(paymentId, second, 300);
    standIn.failRefund(reference, 'Card expired');
    const byTransaction = Buffer.from(JSON.stringify({ event: 'refund.failed', data: { transaction: { reference } } }));
    expect(await h.providerPayments.notification('lahza', byTransaction, createHmac('sha512', secretKey).update(byTransaction).digest('hex'))).toEqual({
      accepted: true,
      refunds: [{ refund_id: second, merchant_id: merchant, environment: 'live' }],
    });
    expect(await row(second)).toMatchObject({ status: 'failed', failure_reason: 'Card expired' });
  });
});
