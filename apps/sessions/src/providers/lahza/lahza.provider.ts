// Lahza's transaction API (DESIGN §7): initialize → the customer pays on Lahza's page → back with the reference →
// verify on the server; notifications signed with x-lahza-signature (an HMAC of the raw body with the secret key,
// SHA-512 or SHA-256 as configured) are only a hint to verify; refunds go pending → processed or failed, fetched by
// the id the create answer gives (`GET /refund/:id`) or listed by transaction (`GET /refund?transaction=`, which
// Paystack's current documents name; `reference=` is sent beside it for the older form). Only a definite refusal (a
// 4xx other than 408/429, with its words) is a refusal: a 2xx whose body is cut off or unreadable means Lahza acted
// and we do not know what it said, which callers treat as no answer (for a refund: look for it in the list).
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  ProviderRefused,
  ProviderUnavailable,
  type PaymentProvider,
  type ProviderRefund,
  type ProviderVerification,
  type StartAttempt,
} from '../payment-provider';

export interface LahzaSettings {
  /** e.g. https://api.lahza.io (a local stand-in in tests). */
  readonly baseUrl: string;
  /** Secret key: sent as the bearer token and the notification HMAC key; never logged. */
  readonly secretKey: string;
  readonly timeoutMs: number;
  readonly signatureAlgorithm: 'sha512' | 'sha256';
}

interface LahzaAnswer<T> {
  status?: boolean;
  message?: string;
  data?: T;
}

/** Lahza's refund states: only processed and failed are final; anything else (queued, processing, …) is still pending. */
const REFUND_STATUS: Record<string, ProviderRefund['status']> = { processed: 'processed', failed: 'failed' };

/** Connection errors after which the request certainly never reached Lahza. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** Statuses after which the request may be made again later: it was not refused, only not taken now. */
const TRY_AGAIN = new Set([408, 429]);

interface LahzaRefund {
  id?: number | string;
  /** The transaction refunded: an object with its reference (or its id), as the answers carry it. */
  transaction?: { reference?: unknown } | string | number;
  transaction_reference?: unknown;
  status?: string;
  amount?: number | string;
  failure_reason?: string;
  reason?: string;
  message?: string;
}

/** A refund as Lahza's create, fetch and list answers carry it. */
function refundOf(data: LahzaRefund): ProviderRefund {
  const status = REFUND_STATUS[String(data.status ?? '').toLowerCase()] ?? 'pending';
  const id = data.id === undefined || data.id === null ? null : String(data.id);
  const amountCents = Number(data.amount);
  const words = [data.failure_reason, data.reason, data.message].find((w) => typeof w === 'string' && w.trim() !== '');
  return {
    id: id !== null && /^[A-Za-z0-9_.-]{1,64}$/.test(id) ? id : null,
    status,
    amountCents: Number.isSafeInteger(amountCents) ? amountCents : null,
    reason: status === 'failed' ? (words ?? 'refund failed at the provider') : null,
  };
}

/** The transaction reference a refund names, or null when it names none we can compare (only a numeric id). */
function transactionOf(data: LahzaRefund): string | null {
  const named = data.transaction_reference ?? (typeof data.transaction === 'object' && data.transaction !== null ? data.transaction.reference : data.transaction);
  return typeof named === 'string' ? named : null;
}

/**
 * Lahza (like Paystack) reports `abandoned` for a page the customer has not finished and `failed` for a declined card
 * that may be retried on the same page: neither ends the transaction. Only `reversed` does without a payment.
 */
const VERIFIED_STATUS: Record<string, ProviderVerification['status']> = {
  success: 'succeeded',
  failed: 'declined',
  abandoned: 'pending',
  reversed: 'failed',
  pending: 'pending',
  ongoing: 'pending',
  processing: 'pending',
  queued: 'pending',
};

export class LahzaProvider implements PaymentProvider {
  constructor(private readonly settings: LahzaSettings) {}

  async startAttempt(attempt: StartAttempt): Promise<{ redirectUrl: string }> {
    const data = await this.call<{ authorization_url?: string }>('POST', '/transaction/initialize', {
      email: attempt.email,
      amount: String(attempt.amountCents),
      currency: attempt.currency,
      reference: attempt.reference,
      callback_url: attempt.callbackUrl,
    });
    if (typeof data.authorization_url !== 'string' || !/^https?:\/\//.test(data.authorization_url)) {
      throw new ProviderRefused(`lahza initialize of ${attempt.reference} answered no authorization_url`);
    }
    return { redirectUrl: data.authorization_url };
  }

  async verify(reference: string): Promise<ProviderVerification> {
    const data = await this.call<{ status?: string; amount?: number | string; currency?: string; reference?: string; gateway_response?: string }>(
      'GET',
      `/transaction/verify/${encodeURIComponent(reference)}`,
    );
    if (data.reference !== undefined && data.reference !== reference) throw new ProviderRefused(`lahza verify of ${reference} answered for ${String(data.reference)}`);
    const status = VERIFIED_STATUS[String(data.status ?? '').toLowerCase()];
    const amountCents = Number(data.amount);
    if (!status || !Number.isSafeInteger(amountCents)) throw new ProviderRefused(`lahza verify of ${reference} answered status ${String(data.status)} amount ${String(data.amount)}`);
    const failing = status === 'failed' || status === 'declined';
    return { reference, status, amountCents, currency: String(data.currency ?? ''), reason: failing ? (data.gateway_response ?? String(data.status)) : null };
  }

  isSignedNotification(rawBody: Buffer, signature: string | undefined): boolean {
    if (!signature || !/^[0-9a-f]+$/i.test(signature)) return false;
    const expected = createHmac(this.settings.signatureAlgorithm, this.settings.secretKey).update(rawBody).digest();
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async refund(input: { reference: string; amountCents: number }): Promise<ProviderRefund> {
    // Any 2xx answer means the refund exists at Lahza: one we cannot read at all is no answer (ProviderUnavailable,
    // found in the transaction's list later); one we read without an id or status is pending.
    return refundOf(await this.call<LahzaRefund>('POST', '/refund', { transaction: input.reference, amount: String(input.amountCents), currency: 'USD' }));
  }

  async refundStatus(id: string): Promise<ProviderRefund> {
    const refund = refundOf(await this.call<LahzaRefund>('GET', `/refund/${encodeURIComponent(id)}`));
    if (refund.id !== null && refund.id !== id) throw new ProviderRefused(`lahza refund ${id} answered for ${refund.id}`);
    return { ...refund, id };
  }

  async refundsOf(reference: string): Promise<ProviderRefund[]> {
    const ref = encodeURIComponent(reference);
    const data = await this.call<LahzaRefund[]>('GET', `/refund?transaction=${ref}&reference=${ref}&perPage=100`);
    if (!Array.isArray(data)) throw new ProviderUnavailable(`lahza refund list of ${reference} answered no list`);
    // A list that ignored the filter must not lend another transaction's refund: those naming another are left out.
    return data.filter((r) => [null, reference].includes(transactionOf(r))).map(refundOf);
  }

  /**
   * One request; a timeout, a network failure, a 5xx, a 408 or 429, or a 2xx we cannot read is ProviderUnavailable
   * (retry later; it may have acted), a definite refusal ProviderRefused.
   */
  private async call<T>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.settings.baseUrl.replace(/\/$/, '')}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.settings.secretKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      const code = ((error as Error).cause as { code?: string } | undefined)?.code;
      throw new ProviderUnavailable(
        `lahza ${method} ${path}: ${(error as Error).name === 'TimeoutError' ? `no answer within ${this.settings.timeoutMs} ms` : `${(error as Error).message}${code ? ` (${code})` : ''}`}`,
        !(code !== undefined && NOT_SENT.has(code)),
      );
    }
    // A 2xx means Lahza acted; a 5xx, 408 or 429 that it may act or may have: never a refusal.
    const uncertain = res.ok || res.status >= 500 || TRY_AGAIN.has(res.status);
    let answer: LahzaAnswer<T> | null;
    try {
      answer = JSON.parse(await res.text()) as LahzaAnswer<T>;
    } catch (error) {
      // The body was cut off (a dropped connection, the timeout mid-body) or is not JSON.
      if (uncertain) throw new ProviderUnavailable(`lahza ${method} ${path} answered ${res.status} with a body we could not read: ${(error as Error).message}`);
      answer = null;
    }
    if (!res.ok) {
      if (uncertain) throw new ProviderUnavailable(`lahza ${method} ${path} answered ${res.status}`);
      const words = typeof answer?.message === 'string' && answer.message.trim() !== '' ? answer.message : null;
      throw new ProviderRefused(`lahza ${method} ${path} answered ${res.status}: ${words ?? 'no data'}`, words);
    }
    if (answer === null || answer.status === false || answer.data === undefined || answer.data === null) {
      throw new ProviderUnavailable(`lahza ${method} ${path} answered ${res.status} without data`);
    }
    return answer.data;
  }
}
