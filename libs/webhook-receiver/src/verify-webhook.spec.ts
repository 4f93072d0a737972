import { computeSignature, verifyWebhook } from './verify-webhook';

// Vectors computed independently: printf '%s' '<t>.<body>' | openssl dgst -sha256 -hmac '<secret>'.
const SECRET = 'whsec_test_secret';
const OLD_SECRET = 'whsec_old_secret';
const T = 1700000000;
const INTENT_BODY = '{"id":"evt_test","type":"payment_intent.succeeded"}';
const INTENT_SIG = '1fa069bafb0fb0ec61ca8e80964ba68904130b9623f205d87d85ad75d5de7d02';
const INVOICE_BODY = '{"id":"evt_inv","event":"invoice.paid"}';
const INVOICE_SIG = '799b19036952aa2070b14cdde50576b1c9d480d99be08addde03f76e12f6bd6f';
const INVOICE_SIG_OLD = '6d2fb187fc72d8487e487952cdd27065253cad61bebeda1c887dc0fab544d162';

const at = (seconds: number) => () => seconds * 1000;

const intentHeaders = (signature = `t=${T},v1=${INTENT_SIG}`) => ({
  'x-service-event': 'payment_intent.succeeded',
  'x-service-signature': signature,
});
const invoiceHeaders = (signature = `v1=${INVOICE_SIG}`, timestamp = String(T)) => ({
  'service-event-id': 'evt_inv',
  'service-timestamp': timestamp,
  'service-signature': signature,
});

describe('computeSignature', () => {
  it('matches the vectors', () => {
    expect(computeSignature(SECRET, T, INTENT_BODY)).toBe(INTENT_SIG);
    expect(computeSignature(SECRET, String(T), Buffer.from(INVOICE_BODY))).toBe(INVOICE_SIG);
    expect(computeSignature(OLD_SECRET, T, INVOICE_BODY)).toBe(INVOICE_SIG_OLD);
  });
});

describe('verifyWebhook', () => {
  it('accepts the payment-intent scheme vector', () => {
    const result = verifyWebhook(Buffer.from(INTENT_BODY), intentHeaders(), { secret: SECRET, now: at(T) });
    expect(result).toEqual({
      ok: true,
      webhook: { scheme: 'intent', id: 'evt_test', type: 'payment_intent.succeeded', timestamp: T, event: JSON.parse(INTENT_BODY) },
    });
  });

  it('accepts the invoice scheme vector (header names in any case)', () => {
    const headers = { 'Service-Event-Id': 'evt_inv', 'Service-Timestamp': String(T), 'Service-Signature': `v1=${INVOICE_SIG}` };
    const result = verifyWebhook(INVOICE_BODY, headers, { secret: SECRET, now: at(T) });
    expect(result).toMatchObject({ ok: true, webhook: { scheme: 'invoice', id: 'evt_inv', type: 'invoice.paid' } });
  });

  it('accepts within 300 s either way and refuses beyond', () => {
    expect(verifyWebhook(INTENT_BODY, intentHeaders(), { secret: SECRET, now: at(T + 300) }).ok).toBe(true);
    expect(verifyWebhook(INTENT_BODY, intentHeaders(), { secret: SECRET, now: at(T - 300) }).ok).toBe(true);
    expect(verifyWebhook(INTENT_BODY, intentHeaders(), { secret: SECRET, now: at(T + 301) })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyWebhook(INVOICE_BODY, invoiceHeaders(), { secret: SECRET, now: at(T - 301) })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('refuses a changed body, another secret, a changed timestamp', () => {
    expect(verifyWebhook(`${INTENT_BODY} `, intentHeaders(), { secret: SECRET, now: at(T) })).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifyWebhook(INTENT_BODY, intentHeaders(), { secret: 'whsec_other', now: at(T) })).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifyWebhook(INVOICE_BODY, invoiceHeaders(undefined, String(T + 1)), { secret: SECRET, now: at(T) })).toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('after a roll, two v1= values: a receiver with either the old or the new secret verifies', () => {
    const headers = invoiceHeaders(`v1=${INVOICE_SIG},v1=${INVOICE_SIG_OLD}`);
    expect(verifyWebhook(INVOICE_BODY, headers, { secret: SECRET, now: at(T) }).ok).toBe(true);
    expect(verifyWebhook(INVOICE_BODY, headers, { secret: OLD_SECRET, now: at(T) }).ok).toBe(true);
    expect(verifyWebhook(INVOICE_BODY, invoiceHeaders(), { secret: [OLD_SECRET, SECRET], now: at(T) }).ok).toBe(true);
    expect(verifyWebhook(INVOICE_BODY, invoiceHeaders(), { secret: OLD_SECRET, now: at(T) }).ok).toBe(false);
  });

  it.each([
    [{}, 'missing_signature'],
    [{ 'x-service-signature': `v1=${INTENT_SIG}`, 'x-service-event': 'payment_intent.succeeded' }, 'malformed_signature'],
    [{ 'x-service-signature': `t=${T}`, 'x-service-event': 'payment_intent.succeeded' }, 'malformed_signature'],
    [{ 'x-service-signature': `t=abc,v1=${INTENT_SIG}`, 'x-service-event': 'payment_intent.succeeded' }, 'malformed_signature'],
    [{ 'service-signature': `v1=${INVOICE_SIG}` }, 'malformed_signature'],
    [{ 'x-service-signature': `t=${T},v1=${INTENT_SIG.toUpperCase()}`, 'x-service-event': 'payment_intent.succeeded' }, 'signature_mismatch'],
    [{ 'x-service-signature': `t=${T},v1=${INTENT_SIG.slice(1)}`, 'x-service-event': 'payment_intent.succeeded' }, 'signature_mismatch'],
  ])('refuses headers %p (%s)', (headers, reason) => {
    expect(verifyWebhook(INTENT_BODY, headers, { secret: SECRET, now: at(T) })).toMatchObject({ ok: false, reason });
  });

  it('refuses headers that disagree with the signed body', () => {
    expect(verifyWebhook(INTENT_BODY, { ...intentHeaders(), 'x-service-event': 'payment_intent.cancelled' }, { secret: SECRET, now: at(T) })).toMatchObject({
      reason: 'invalid_body',
    });
    expect(verifyWebhook(INVOICE_BODY, { ...invoiceHeaders(), 'service-event-id': 'evt_other' }, { secret: SECRET, now: at(T) })).toMatchObject({
      reason: 'invalid_body',
    });
  });

  it('parses the body only after the signature matched', () => {
    const body = 'not json';
    const sig = computeSignature(SECRET, T, body);
    expect(verifyWebhook(body, intentHeaders(`t=${T},v1=${sig}`), { secret: SECRET, now: at(T) })).toMatchObject({ reason: 'invalid_body' });
    expect(verifyWebhook(body, intentHeaders(), { secret: SECRET, now: at(T) })).toMatchObject({ reason: 'signature_mismatch' });
  });
});
