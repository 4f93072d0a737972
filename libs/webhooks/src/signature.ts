import { createHmac } from 'node:crypto';

/**
 * The signature both schemes carry as `v1=`: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with
 * the endpoint secret (the whole `whsec_…` string, as UTF-8 bytes).
 */
export function signPayload(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(rawBody);
  return hmac.digest('hex');
}

/** `X-Service-Signature` of the payment-intent scheme: `t=<unix>,v1=<hex>` (one `v1=` per signing secret). */
export function intentSignatureHeader(timestamp: number, signatures: readonly string[]): string {
  return [`t=${timestamp}`, ...signatures.map((s) => `v1=${s}`)].join(',');
}

/** `Service-Signature` of the invoice scheme: `v1=<hex>` (one per signing secret, comma-separated). */
export function invoiceSignatureHeader(signatures: readonly string[]): string {
  return signatures.map((s) => `v1=${s}`).join(',');
}
