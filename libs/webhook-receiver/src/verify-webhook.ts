import { createHmac, timingSafeEqual } from 'node:crypto';

/** The reference receiver's tolerance between the signed timestamp and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Request headers as Node gives them (lower-case names), or any plain record of them. */
export type WebhookHeaders = Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The endpoint's `whsec_…` secret; during a roll, the old and the new one (either may match). */
  secret: string | readonly string[];
  /** Default 300. */
  toleranceSeconds?: number;
  /** Current time in ms (tests). */
  now?: () => number;
}

/** `invoice`: `Service-*` headers; `intent`: `X-Service-*` headers (payment intents, refunds, test events). */
export type WebhookScheme = 'invoice' | 'intent';

export interface VerifiedWebhook {
  scheme: WebhookScheme;
  /** Event id: handle each one once (the same event can arrive more than once). */
  id: string;
  /** Event type, e.g. `invoice.paid`, `payment_intent.succeeded`. */
  type: string;
  /** The signed Unix timestamp. */
  timestamp: number;
  /** The parsed body. */
  event: Record<string, unknown>;
}

export type VerifyFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_body';

export type VerifyResult = { ok: true; webhook: VerifiedWebhook } | { ok: false; reason: VerifyFailure; message: string };

function header(headers: WebhookHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    return Array.isArray(value) ? value.join(',') : value;
  }
  return undefined;
}

/** `k=v,k=v` pairs of a signature header. */
function pairs(value: string): Array<[string, string]> {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const at = part.indexOf('=');
      return at === -1 ? ([part, ''] as [string, string]) : ([part.slice(0, at).trim(), part.slice(at + 1).trim()] as [string, string]);
    });
}

/** Lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the secret. */
export function computeSignature(secret: string, timestamp: number | string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  hmac.update(rawBody);
  return hmac.digest('hex');
}

/** Constant-time: compares every expected value with every candidate of the same length, without early exits. */
function anyMatches(expected: readonly string[], candidates: readonly string[]): boolean {
  let matched = false;
  for (const want of expected) {
    const wantBytes = Buffer.from(want, 'utf8');
    for (const candidate of candidates) {
      const got = Buffer.from(candidate, 'utf8');
      if (got.length === wantBytes.length && timingSafeEqual(got, wantBytes)) matched = true;
    }
  }
  return matched;
}

const fail = (reason: VerifyFailure, message: string): VerifyResult => ({ ok: false, reason, message });

/**
 * Verifies a webhook over its raw, unparsed body (either scheme, told apart by its headers): the signature must
 * match one of the secrets and the timestamp must be within the tolerance of now. Only then is the body parsed.
 */
export function verifyWebhook(rawBody: Buffer | string, headers: WebhookHeaders, options: VerifyOptions): VerifyResult {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((s) => s.length === 0)) throw new Error('verifyWebhook needs the endpoint secret');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);

  const intentSignature = header(headers, 'x-service-signature');
  const invoiceSignature = header(headers, 'service-signature');
  let scheme: WebhookScheme;
  let timestampText: string | undefined;
  let candidates: string[];
  if (intentSignature !== undefined) {
    scheme = 'intent';
    const parsed = pairs(intentSignature);
    timestampText = parsed.find(([k]) => k === 't')?.[1];
    candidates = parsed.filter(([k]) => k === 'v1').map(([, v]) => v);
  } else if (invoiceSignature !== undefined) {
    scheme = 'invoice';
    timestampText = header(headers, 'service-timestamp');
    candidates = pairs(invoiceSignature)
      .filter(([k]) => k === 'v1')
      .map(([, v]) => v);
  } else {
    return fail('missing_signature', 'no X-Service-Signature or Service-Signature header');
  }
  if (timestampText === undefined || !/^\d{1,12}$/.test(timestampText)) return fail('malformed_signature', 'missing or malformed timestamp');
  if (candidates.length === 0) return fail('malformed_signature', 'no v1= signature');
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    return fail('timestamp_out_of_tolerance', `timestamp is more than ${tolerance} s away from now`);
  }

  const expected = secrets.map((secret) => computeSignature(secret, timestampText!, rawBody));
  if (!anyMatches(expected, candidates)) return fail('signature_mismatch', 'no signature matches the secret');

  let event: unknown;
  try {
    event = JSON.parse(Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody);
  } catch (error) {
    return fail('invalid_body', `body is not JSON: ${(error as Error).message}`);
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return fail('invalid_body', 'body is not a JSON object');
  const body = event as Record<string, unknown>;
  const id = body.id;
  const type = scheme === 'invoice' ? body.event : body.type;
  if (typeof id !== 'string' || typeof type !== 'string') return fail('invalid_body', 'body has no event id or type');
  // The headers that name the event must agree with the signed body.
  if (scheme === 'invoice' && header(headers, 'service-event-id') !== id) return fail('invalid_body', 'Service-Event-Id differs from the body id');
  if (scheme === 'intent' && header(headers, 'x-service-event') !== type) return fail('invalid_body', 'X-Service-Event differs from the body type');
  return { ok: true, webhook: { scheme, id, type, timestamp, event: body } };
}
