import { signedWebhookHeaders } from './webhook-headers';
import { intentSignatureHeader, invoiceSignatureHeader, signPayload } from './signature';

// Vectors computed independently: printf '%s' '<t>.<body>' | openssl dgst -sha256 -hmac '<secret>'.
const SECRET = 'whsec_test_secret';
const OLD_SECRET = 'whsec_old_secret';
const T = 1700000000;
const INTENT_BODY = '{"id":"evt_test","type":"payment_intent.succeeded"}';
const INTENT_SIG = '1fa069bafb0fb0ec61ca8e80964ba68904130b9623f205d87d85ad75d5de7d02';
const INVOICE_BODY = '{"id":"evt_inv","event":"invoice.paid"}';
const INVOICE_SIG = '799b19036952aa2070b14cdde50576b1c9d480d99be08addde03f76e12f6bd6f';
const INVOICE_SIG_OLD = '6d2fb187fc72d8487e487952cdd27065253cad61bebeda1c887dc0fab544d162';

describe('signPayload', () => {
  it('is the lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the secret', () => {
    expect(signPayload(SECRET, T, INTENT_BODY)).toBe(INTENT_SIG);
    expect(signPayload(SECRET, T, Buffer.from(INVOICE_BODY))).toBe(INVOICE_SIG);
    expect(signPayload(OLD_SECRET, T, INVOICE_BODY)).toBe(INVOICE_SIG_OLD);
  });

  it('changes with any byte of the body, the timestamp or the secret', () => {
    expect(signPayload(SECRET, T + 1, INTENT_BODY)).not.toBe(INTENT_SIG);
    expect(signPayload(SECRET, T, `${INTENT_BODY} `)).not.toBe(INTENT_SIG);
    expect(signPayload(`${SECRET}x`, T, INTENT_BODY)).not.toBe(INTENT_SIG);
  });
});

describe('signature headers', () => {
  it('payment-intent scheme: X-Service-Event and X-Service-Signature t=<unix>,v1=<hex>', () => {
    expect(intentSignatureHeader(T, [INTENT_SIG])).toBe(`t=${T},v1=${INTENT_SIG}`);
    expect(
      signedWebhookHeaders({
        scheme: 'intent',
        eventId: 'evt_test',
        eventType: 'payment_intent.succeeded',
        body: INTENT_BODY,
        timestamp: T,
        secrets: [SECRET],
        userAgent: 'PaymentsWebhooks/1.0',
      }),
    ).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'PaymentsWebhooks/1.0',
      'X-Service-Event': 'payment_intent.succeeded',
      'X-Service-Signature': `t=${T},v1=${INTENT_SIG}`,
    });
  });

  it('invoice scheme: Service-Event-Id, Service-Timestamp and Service-Signature v1=<hex>', () => {
    expect(invoiceSignatureHeader([INVOICE_SIG])).toBe(`v1=${INVOICE_SIG}`);
    expect(
      signedWebhookHeaders({
        scheme: 'invoice',
        eventId: 'evt_inv',
        eventType: 'invoice.paid',
        body: INVOICE_BODY,
        timestamp: T,
        secrets: [SECRET],
        userAgent: 'PaymentsWebhooks/1.0',
      }),
    ).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'PaymentsWebhooks/1.0',
      'Service-Event-Id': 'evt_inv',
      'Service-Timestamp': String(T),
      'Service-Signature': `v1=${INVOICE_SIG}`,
    });
  });

  it('after a roll both secrets sign: one v1= each, current first', () => {
    const headers = signedWebhookHeaders({
      scheme: 'invoice',
      eventId: 'evt_inv',
      eventType: 'invoice.paid',
      body: INVOICE_BODY,
      timestamp: T,
      secrets: [SECRET, OLD_SECRET],
      userAgent: 'PaymentsWebhooks/1.0',
    });
    expect(headers['Service-Signature']).toBe(`v1=${INVOICE_SIG},v1=${INVOICE_SIG_OLD}`);
  });

  it('refuses to sign without a secret', () => {
    expect(() =>
      signedWebhookHeaders({ scheme: 'intent', eventId: 'e', eventType: 't', body: '{}', timestamp: T, secrets: [], userAgent: 'x/1' }),
    ).toThrow(/secret/);
  });
});
