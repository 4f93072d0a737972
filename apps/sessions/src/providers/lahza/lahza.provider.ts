// Lahza's transaction API (DESIGN §7): initialize → the customer pays on Lahza's page → back with the reference →
// verify on the server; notifications signed with x-lahza-signature (an HMAC of the raw body with the secret key,
// SHA-512 or SHA-256 as configured) are only a hint to verify; refunds go pending → processed.
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

const VERIFIED_STATUS: Record<string, ProviderVerification['status']> = {
  success: 'succeeded',
  failed: 'failed',
  abandoned: 'failed',
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
    return { reference, status, amountCents, currency: String(data.currency ?? ''), reason: status === 'failed' ? (data.gateway_response ?? String(data.status)) : null };
  }

  isSignedNotification(rawBody: Buffer, signature: string | undefined): boolean {
    if (!signature || !/^[0-9a-f]+$/i.test(signature)) return false;
    const expected = createHmac(this.settings.signatureAlgorithm, this.settings.secretKey).update(rawBody).digest();
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async refund(input: { reference: string; amountCents: number }): Promise<ProviderRefund> {
    const data = await this.call<{ status?: string; message?: string }>('POST', '/refund', { transaction: input.reference, amount: String(input.amountCents) });
    const status = String(data.status ?? '').toLowerCase();
    if (status === 'processed') return { status: 'processed', reason: null };
    if (status === 'failed') return { status: 'failed', reason: data.message ?? 'refund failed at the provider' };
    return { status: 'pending', reason: null };
  }

  /** One request; a timeout, a network failure or a 5xx is ProviderUnavailable (retry later), a refusal ProviderRefused. */
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
      throw new ProviderUnavailable(`lahza ${method} ${path}: ${(error as Error).name === 'TimeoutError' ? `no answer within ${this.settings.timeoutMs} ms` : (error as Error).message}`);
    }
    const answer = (await res.json().catch(() => ({}))) as LahzaAnswer<T>;
    if (res.status >= 500) throw new ProviderUnavailable(`lahza ${method} ${path} answered ${res.status}`);
    if (res.status >= 300 || answer.status === false || answer.data === undefined) {
      throw new ProviderRefused(`lahza ${method} ${path} answered ${res.status}: ${answer.message ?? 'no data'}`);
    }
    return answer.data;
  }
}
