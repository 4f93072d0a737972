// A merchant's server as the fault suite plays it: every call carries an Idempotency-Key and is retried with the
// same key on a network error, a 5xx, 429 or "in progress", until it has an answer (bounded). Each create and
// simulate that succeeds is stamped, so the suite can tell when a fault stopped and when it ended. Every fourth
// payment is made by the customer at Lahza (the stand-in) through the checkout instead of a simulate.
import { randomUUID } from 'node:crypto';
import type { LahzaStandIn } from '@payments/testing';

export interface PaymentOutcome {
  index: number;
  intentId: string;
  paymentId: string;
  /** The refund made of part of the payment, and its amount. */
  refundId: string;
  refundAmount: string;
  /** Time the create succeeded and the simulate succeeded (ms since epoch). */
  createdAt: number;
  succeededAt: number;
  /** Requests that failed and were retried (network, 5xx, 429, in progress). */
  retries: number;
  /** Paid by the customer at Lahza through the checkout (else by a simulate). */
  atLahza: boolean;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const GIVE_UP_AFTER_MS = 120_000;

export class MerchantClient {
  /** Every successful create, with its time: the first after a fault's recovery is what the suite reports. */
  readonly createSuccesses: number[] = [];

  constructor(
    private readonly gatewayUrl: () => string,
    private readonly key: string,
    /** When given, every fourth payment is paid at this Lahza stand-in through the checkout. */
    private readonly lahza?: LahzaStandIn,
  ) {}

  /** One payment: create, simulate succeeded, refund part of it; each retried with its own key until it answers. */
  async pay(index: number): Promise<PaymentOutcome> {
    const key = randomUUID();
    let retries = 0;
    const created = await this.call('POST', '/api/v1/payment-intents', key, { amount: amountOf(index), currency: 'USD', external_ref: `chaos-${index}` }, () => retries++);
    const createdAt = Date.now();
    this.createSuccesses.push(createdAt);
    const intentId = String(created.id);
    const atLahza = this.lahza !== undefined && index % 4 === 3;
    const paid = atLahza
      ? await this.payAtLahza(intentId, () => retries++)
      : await this.call('POST', `/api/v1/payment-intents/${intentId}/simulate`, `simulate-${key}`, { result: 'succeeded' }, () => retries++);
    if (paid.status !== 'succeeded') throw new Error(`payment of ${intentId} answered ${String(paid.status)}`);
    const succeededAt = Date.now();
    const paymentId = String(paid.payment_id);
    const refundAmount = refundOf(index);
    const refunded = await this.call('POST', `/api/v1/payments/${paymentId}/refunds`, `refund-${key}`, { amount: refundAmount, reason: `chaos-${index}` }, () => retries++);
    if (refunded.status !== 'completed' || refunded.amount !== refundAmount) throw new Error(`refund of ${paymentId} answered ${JSON.stringify(refunded)}`);
    return { index, intentId, paymentId, refundId: String(refunded.id), refundAmount, createdAt, succeededAt, retries, atLahza };
  }

  /**
   * The customer's side: the checkout's pay button (until it sends them to Lahza), paying on Lahza's page, and the
   * return to the checkout (until it answers; if the return is lost to a fault, sessions' background check still
   * settles the attempt). Then the intent as the merchant reads it, once succeeded.
   */
  private async payAtLahza(intentId: string, onRetry: () => void): Promise<Record<string, unknown>> {
    const started = Date.now();
    const checkout = () => `${this.gatewayUrl()}/checkout/${intentId}`;
    const retryUntil = async (what: string, attempt: () => Promise<string | null>): Promise<string> => {
      for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
        const result = await attempt().catch(() => null);
        if (result !== null) return result;
        if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`${what} of ${intentId} had no answer within ${GIVE_UP_AFTER_MS} ms`);
        onRetry();
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    };
    const token = randomUUID();
    const lahzaPage = await retryUntil('the pay button', async () => {
      const res = await fetch(`${checkout()}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ method: 'lahza', provider: '1', attempt: token }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(15_000),
      });
      const location = res.headers.get('location') ?? '';
      return res.status === 303 && location.includes('/pay/') ? location : null;
    });
    const reference = [...this.lahza!.transactions.values()].find((tx) => lahzaPage.endsWith(`/pay/${tx.accessCode}`))!.reference;
    this.lahza!.complete(reference, 'success');
    await retryUntil('the return from Lahza', async () => {
      const res = await fetch(`${checkout()}/return?reference=${reference}`, { redirect: 'manual', signal: AbortSignal.timeout(15_000) });
      return res.status === 303 && !(res.headers.get('location') ?? '').includes('declined') ? 'back' : null;
    });
    for (;;) {
      const intent = await this.call('GET', `/api/v1/payment-intents/${intentId}`, undefined, undefined, onRetry);
      if (intent.status !== 'processing') return intent;
      if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`${intentId} paid at Lahza is still processing after ${GIVE_UP_AFTER_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async get(intentId: string): Promise<Record<string, unknown>> {
    return this.call('GET', `/api/v1/payment-intents/${intentId}`, undefined, undefined, () => undefined);
  }

  /** The available balance in the key's environment, as a MoneyString. */
  async balance(): Promise<string> {
    const balance = await this.call('GET', '/api/v1/balance', undefined, undefined, () => undefined);
    return (balance.available as Array<{ amount: string }>)[0]!.amount;
  }

  async createEndpoint(url: string): Promise<{ id: string; secret: string }> {
    return (await this.call('POST', '/api/v1/webhook-endpoints', randomUUID(), { url, events: ['payment_intent.succeeded', 'refund.completed'] }, () => undefined)) as never;
  }

  private async call(method: string, path: string, idempotencyKey: string | undefined, body: unknown, onRetry: () => void): Promise<Record<string, unknown>> {
    const started = Date.now();
    let delay = 100;
    for (;;) {
      let status = 0;
      let answer: Record<string, unknown> = {};
      try {
        const res = await fetch(`${this.gatewayUrl()}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        status = res.status;
        answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      } catch {
        status = 0; // network error or timeout: the same key makes the retry safe
      }
      if (status >= 200 && status < 300) return answer;
      const code = (answer.error as { code?: string } | undefined)?.code;
      const retryable = status === 0 || RETRYABLE_STATUS.has(status) || code === 'idempotency_request_in_progress';
      if (!retryable) throw new Error(`${method} ${path} answered ${status} ${JSON.stringify(answer)}`);
      if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`${method} ${path} had no answer within ${GIVE_UP_AFTER_MS} ms (last ${status})`);
      onRetry();
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 1000);
    }
  }
}

/** Amounts vary so a doubled payment could not hide behind an identical one. */
function amountOf(index: number): string {
  return `${10 + (index % 90)}.${String(index % 100).padStart(2, '0')}`;
}

/** A part of the payment (0.01 to 5.00, below every amount), varying so a doubled refund would show in the sums. */
function refundOf(index: number): string {
  const cents = 1 + ((index * 37) % 500);
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
