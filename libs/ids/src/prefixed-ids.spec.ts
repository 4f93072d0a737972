import {
  environmentOfInvoiceId,
  environmentOfPaymentIntentId,
  newEventId,
  newInvoiceId,
  newPaymentIntentId,
  newRefundId,
  newRequestId,
} from './prefixed-ids';

describe('prefixed ids', () => {
  it('carry their type, their environment and 24 random base62 characters', () => {
    expect(newPaymentIntentId('live')).toMatch(/^pi_live_[0-9A-Za-z]{24}$/);
    expect(newPaymentIntentId('test')).toMatch(/^pi_test_[0-9A-Za-z]{24}$/);
    expect(newInvoiceId('live')).toMatch(/^inv_[0-9A-Za-z]{24}$/);
    expect(newInvoiceId('test')).toMatch(/^inv_test_[0-9A-Za-z]{24}$/);
    expect(newRefundId()).toMatch(/^re_[0-9A-Za-z]{24}$/);
    expect(newEventId()).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(newRequestId()).toMatch(/^req_[0-9A-Za-z]{24}$/);
  });

  it('live payment intent ids match the spec path pattern', () => {
    expect(newPaymentIntentId('live')).toMatch(/^pi_live_[A-Za-z0-9_-]+$/);
  });

  it('tell the environment of a payment intent id', () => {
    expect(environmentOfPaymentIntentId(newPaymentIntentId('live'))).toBe('live');
    expect(environmentOfPaymentIntentId(newPaymentIntentId('test'))).toBe('test');
  });

  it.each([
    ['pi_prod_aaaaaaaaaaaaaaaaaaaaaaaa'],
    ['pi_live_short'],
    ['pi_live_aaaaaaaaaaaaaaaaaaaaaaaa_'],
    ['pi_live_aaaaaaaaaaaa-aaaaaaaaaaa'],
    ['inv_aaaaaaaaaaaaaaaaaaaaaaaa'],
    [''],
    [42],
    [null],
  ])('return null for the malformed payment intent id %p', (id) => {
    expect(environmentOfPaymentIntentId(id)).toBeNull();
  });

  it('tell the environment of an invoice id', () => {
    expect(environmentOfInvoiceId(newInvoiceId('live'))).toBe('live');
    expect(environmentOfInvoiceId(newInvoiceId('test'))).toBe('test');
  });

  it.each([
    ['inv_live_aaaaaaaaaaaaaaaaaaaaaaaa'],
    ['inv_test_short'],
    ['inv_'],
    ['pi_test_aaaaaaaaaaaaaaaaaaaaaaaa'],
    [undefined],
  ])('return null for the malformed invoice id %p', (id) => {
    expect(environmentOfInvoiceId(id)).toBeNull();
  });
});
