// Webhook verification through @payments/webhook-receiver (one implementation of the two signature schemes), and
// signing for merchants' own tests of their receivers.
import { computeSignature, verifyWebhook, type VerifiedWebhook, type WebhookHeaders, type WebhookScheme } from '@payments/webhook-receiver';
import { WebhookSignatureError } from './errors';

export type { VerifiedWebhook, WebhookHeaders, WebhookScheme };

export interface WebhookVerifyOptions {
  /** Default 300 s, as the reference receiver. */
  toleranceSeconds?: number;
  /** Current time in ms (tests). */
  now?: () => number;
}

export interface SignedTestPayload {
  /** The raw body, as the service would send it. */
  body: string;
  headers: Record<string, string>;
}

export interface SignOptions {
  /** `intent` (`X-Service-Event`, `X-Service-Signature: t=…,v1=…`) or `invoice` (`Service-*` headers). Default: by the payload (`event` → invoice). */
  scheme?: WebhookScheme;
  /** Unix seconds; default now. */
  timestamp?: number;
}

export const webhooks = {
  /**
   * Verifies a webhook over its raw, unparsed body, either scheme: the signature must match the secret (or one of
   * the secrets during a roll) and the timestamp must be within the tolerance. Returns the event; throws
   * WebhookSignatureError (`code`: missing_signature, malformed_signature, timestamp_out_of_tolerance,
   * signature_mismatch, invalid_body) otherwise: answer 400 then.
   */
  verify(rawBody: Buffer | string, headers: WebhookHeaders, secret: string | readonly string[], options: WebhookVerifyOptions = {}): VerifiedWebhook {
    if (typeof rawBody !== 'string' && !Buffer.isBuffer(rawBody)) {
      throw new TypeError('webhooks.verify needs the raw body (a Buffer or string), not a parsed object: the signature covers the exact bytes');
    }
    const result = verifyWebhook(rawBody, headers, { secret, toleranceSeconds: options.toleranceSeconds, now: options.now });
    if (!result.ok) throw new WebhookSignatureError({ code: result.reason, message: result.message });
    return result.webhook;
  },

  /** A payload signed as the service signs it, to test a receiver without the service. */
  signTestPayload(payload: Record<string, unknown>, secret: string, options: SignOptions = {}): SignedTestPayload {
    const body = JSON.stringify(payload);
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const scheme = options.scheme ?? (typeof payload.event === 'string' ? 'invoice' : 'intent');
    const signature = computeSignature(secret, timestamp, body);
    if (scheme === 'invoice') {
      return {
        body,
        headers: {
          'content-type': 'application/json',
          'service-event-id': String(payload.id ?? ''),
          'service-timestamp': String(timestamp),
          'service-signature': `v1=${signature}`,
        },
      };
    }
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-service-event': String(payload.type ?? ''),
        'x-service-signature': `t=${timestamp},v1=${signature}`,
      },
    };
  },
};
