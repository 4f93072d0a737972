// A merchant's server as the fault suite plays it: every call carries an Idempotency-Key and is retried with the
// same key on a network error, a 5xx, 429 or "in progress", until it has an answer (bounded). Each create and
// simulate that succeeds is stamped, so the suite can tell when a fault stopped and when it ended.
import { randomUUID } from 'node:crypto';

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
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const GIVE_UP_AFTER_MS = 120_000;

export class MerchantClient {
  /** Every successful create, with its time: the first after a fault's recovery is what the suite reports. */
  readonly createSuccesses: number[] = [];

  constructor(
    private readonly gatewayUrl: () => string,
    private readonly key: string,
  ) {}

  /** One payment: create, simulate succeeded, refund part of it; each retried with its own key until it answers. */
  async pay(index: number): Promise<PaymentOutcome> {
    const key = randomUUID();
    let retries = 0;
    const created = await this.call('POST', '/api/v1/payment-intents', key, { amount: amountOf(index), currency: 'USD', external_ref: `chaos-${index}` }, () => retries++);
    const createdAt = Date.now();
    this.createSuccesses.push(createdAt);
    const intentId = String(created.id);
    const simulated = await this.call('POST', `/api/v1/payment-intents/${intentId}/simulate`, `simulate-${key}`, { result: 'succeeded' }, () => retries++);
    if (simulated.status !== 'succeeded') throw new Error(`simulate of ${intentId} answered ${String(simulated.status)}`);
    const succeededAt = Date.now();
    const paymentId = String(simulated.payment_id);
    const refundAmount = refundOf(index);
    const refunded = await this.call('POST', `/api/v1/payments/${paymentId}/refunds`, `refund-${key}`, { amount: refundAmount, reason: `chaos-${index}` }, () => retries++);
    if (refunded.status !== 'completed' || refunded.amount !== refundAmount) throw new Error(`refund of ${paymentId} answered ${JSON.stringify(refunded)}`);
    return { index, intentId, paymentId, refundId: String(refunded.id), refundAmount, createdAt, succeededAt, retries };
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
