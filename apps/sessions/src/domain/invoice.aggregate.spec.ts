import { newInvoiceId, newPaymentId } from '@payments/ids';
import { feeSchedule } from '@payments/money';
import { Invoice, TEST_PAYER, type InvoiceStatus } from './invoice.aggregate';
import type { InvoiceEvent } from './invoice.events';
import { createInvoiceInput, invoiceIn, newInvoice } from './invoice.fixtures';
import { at, codeOf } from './payment-intent.fixtures';

const STATUSES: InvoiceStatus[] = ['pending', 'paid', 'failed', 'expired'];
const types = (events: InvoiceEvent[]) => events.map((e) => e.type);
const payer = { name: 'Rana K', email: 'rana@example.com', phone: '+970 599 123 456', country: 'ps' };

describe('Invoice.create', () => {
  it('starts pending with fee 0 and net = amount', () => {
    const invoice = newInvoice();
    expect(invoice.state).toMatchObject({
      status: 'pending',
      number: '1001',
      amountCents: 7400,
      currency: 'USD',
      feeCents: 0,
      netCents: 7400,
      paidAt: null,
      payment: null,
      metadata: {},
      createdAt: '2025-03-01T10:00:00.000Z',
      expiresAt: '2025-03-02T10:00:00.000Z', // default 24 h
      version: 1,
    });
  });

  it.each([
    ['a non-numeric number', { number: 'INV-1' }],
    ['an empty number', { number: '' }],
    ['amount below 0.50', { amountCents: 0 }],
    ['another currency', { currency: 'EUR' }],
    ['togo (invoices say wallet)', { methods: ['togo'] as never }],
    ['no methods', { methods: [] }],
    ['expires_in out of range', { expiresInSeconds: 100 }],
    ['a live id on a test invoice', { id: newInvoiceId('live'), environment: 'test' as const }],
  ])('refuses %s as invalid_request', (_name, overrides) => {
    expect(codeOf(() => Invoice.create(createInvoiceInput(overrides)))).toBe('invalid_request');
  });
});

describe('Invoice transitions', () => {
  const commands: Record<string, { from: InvoiceStatus[]; to: InvoiceStatus; run: (i: Invoice) => InvoiceEvent[] }> = {
    pay: { from: ['pending', 'failed'], to: 'paid', run: (i) => i.pay({ paymentId: newPaymentId(), method: 'lahza', now: at(30) }) },
    fail: { from: ['pending', 'failed'], to: 'failed', run: (i) => i.fail({ reason: 'declined', now: at(30) }) },
    expire: { from: ['pending', 'failed'], to: 'expired', run: (i) => i.expire(at(86_400)) },
  };

  for (const [name, command] of Object.entries(commands)) {
    for (const status of STATUSES) {
      if (command.from.includes(status)) {
        it(`${name}: ${status} -> ${command.to}`, () => {
          const invoice = invoiceIn(status);
          const after = invoice.apply(command.run(invoice));
          expect(after.state.status).toBe(command.to);
          expect(after.version).toBe(invoice.version + 1);
        });
      } else {
        it(`${name}: refused from ${status} with invalid_state`, () => {
          expect(codeOf(() => command.run(invoiceIn(status)))).toBe('invalid_state');
        });
      }
    }
  }

  it('refuses a method the invoice does not offer', () => {
    const invoice = newInvoice({ methods: ['wallet'] });
    expect(codeOf(() => invoice.pay({ paymentId: newPaymentId(), method: 'crypto', now: at(5) }))).toBe('payment_methods_unavailable');
    expect(codeOf(() => invoice.fail({ method: 'lahza', now: at(5) }))).toBe('payment_methods_unavailable');
  });

  it('refuses a malformed payment id', () => {
    expect(codeOf(() => newInvoice().pay({ paymentId: 'pay_1', method: 'wallet', now: at(5) }))).toBe('invalid_request');
  });
});

describe('Invoice payment', () => {
  it.each([
    ['wallet', 50, 37, 7363],
    ['lahza', 150, 111, 7289],
    ['crypto', 150, 111, 7289],
  ] as const)('by %s fills fee (%d bps), net, paid_at and the payment with the phone masked', (method, rateBps, feeCents, netCents) => {
    const invoice = newInvoice();
    const paymentId = newPaymentId();
    const events = invoice.pay({ paymentId, method, payer, now: at(20) });
    expect(events).toEqual([
      {
        type: 'InvoicePaid',
        data: {
          paymentId,
          method,
          feeRateBps: rateBps,
          feeCents,
          netCents,
          payer: { name: 'Rana K', email: 'rana@example.com', phone: '+970 5** *** 456', country: 'PS' },
          paidAt: '2025-03-01T10:00:20.000Z',
        },
      },
    ]);
    expect(invoice.apply(events).state).toMatchObject({
      status: 'paid',
      feeCents,
      netCents,
      paidAt: '2025-03-01T10:00:20.000Z',
      payment: { reference: paymentId, method, paidAt: '2025-03-01T10:00:20.000Z' },
    });
  });

  it('never records the full phone number', () => {
    const events = newInvoice().pay({ paymentId: newPaymentId(), method: 'wallet', payer, now: at(20) });
    expect(JSON.stringify(events)).not.toContain('599123456');
  });

  it('can be paid after a failed attempt', () => {
    const failed = invoiceIn('failed');
    expect(failed.state.failureReason).toBe('card_declined');
    const paid = failed.apply(failed.pay({ paymentId: newPaymentId(), method: 'wallet', now: at(40) }));
    expect(paid.state.status).toBe('paid');
  });

  it("uses the merchant's schedule and keeps payer fields null when unknown", () => {
    const invoice = newInvoice();
    const [event] = invoice.pay({ paymentId: newPaymentId(), method: 'wallet', feeSchedule: feeSchedule({ wallet: 100 }), now: at(5) });
    expect(event).toMatchObject({ data: { feeRateBps: 100, feeCents: 74, netCents: 7326, payer: { name: null, email: null, phone: null, country: null } } });
  });

  it('pays with the fee schedule recorded at creation', () => {
    const invoice = newInvoice({ feeSchedule: feeSchedule({ wallet: 0 }) });
    const [event] = invoice.pay({ paymentId: newPaymentId(), method: 'wallet', now: at(5) });
    expect(event).toMatchObject({ data: { feeRateBps: 0, feeCents: 0, netCents: 7400 } });
  });
});

describe('Invoice expiry', () => {
  it.each(['pending', 'failed'] as const)('a %s invoice reads as expired from expires_at on', (status) => {
    const invoice = invoiceIn(status);
    expect(invoice.effectiveStatus(at(86_399))).toBe(status);
    expect(invoice.effectiveStatus(at(86_400))).toBe('expired');
    expect(invoice.isExpiredAt(at(86_400))).toBe(true);
    expect(codeOf(() => invoice.pay({ paymentId: newPaymentId(), method: 'wallet', now: at(86_400) }))).toBe('invalid_state');
  });

  it('a paid invoice stays paid', () => {
    expect(invoiceIn('paid').effectiveStatus(at(200_000))).toBe('paid');
  });

  it('is not recorded before expires_at', () => {
    expect(codeOf(() => newInvoice().expire(at(86_399)))).toBe('invalid_state');
  });

  it('follows expires_in', () => {
    expect(newInvoice({ expiresInSeconds: 3600 }).state.expiresAt).toBe('2025-03-01T11:00:00.000Z');
  });
});

describe('Invoice.simulate', () => {
  it('is for test invoices only', () => {
    expect(codeOf(() => newInvoice().simulate({ result: 'paid', paymentId: newPaymentId(), now: at(5) }))).toBe('live_mode_not_allowed');
  });

  it('pays by wallet with the test payer by default', () => {
    const invoice = newInvoice({ environment: 'test' });
    const events = invoice.simulate({ result: 'paid', paymentId: newPaymentId(), now: at(5) });
    expect(types(events)).toEqual(['InvoicePaid']);
    const state = invoice.apply(events).state;
    expect(state).toMatchObject({ status: 'paid', feeCents: 37, netCents: 7363 });
    expect(state.payment).toMatchObject({ method: 'wallet', payer: { name: TEST_PAYER.name, email: TEST_PAYER.email, phone: '+1 555 *** *123', country: 'US' } });
  });

  it('pays by the first available method when wallet is not offered', () => {
    const invoice = newInvoice({ environment: 'test', methods: ['crypto', 'lahza'] });
    expect(invoice.apply(invoice.simulate({ result: 'paid', paymentId: newPaymentId(), now: at(5) })).state.payment?.method).toBe('crypto');
  });

  it('fails, and the invoice can then still be paid', () => {
    const invoice = newInvoice({ environment: 'test' });
    const failed = invoice.apply(invoice.simulate({ result: 'failed', now: at(5) }));
    expect(failed.state).toMatchObject({ status: 'failed', failureReason: 'simulated_failure' });
    expect(failed.apply(failed.simulate({ result: 'paid', method: 'lahza', paymentId: newPaymentId(), now: at(6) })).state.status).toBe('paid');
  });

  it('expires at once, before expires_at', () => {
    const invoice = newInvoice({ environment: 'test' });
    const expired = invoice.apply(invoice.simulate({ result: 'expired', now: at(5) }));
    expect(expired.state.status).toBe('expired');
    expect(codeOf(() => expired.simulate({ result: 'paid', paymentId: newPaymentId(), now: at(6) }))).toBe('invalid_state');
  });

  it.each(['paid', 'expired'] as const)('refuses every result on a %s invoice', (status) => {
    const invoice = invoiceIn(status, { environment: 'test' });
    const now = at(100_000);
    expect(codeOf(() => invoice.simulate({ result: 'paid', paymentId: newPaymentId(), now }))).toBe('invalid_state');
    expect(codeOf(() => invoice.simulate({ result: 'failed', now }))).toBe('invalid_state');
    expect(codeOf(() => invoice.simulate({ result: 'expired', now }))).toBe('invalid_state');
  });
});

describe('Invoice stream', () => {
  it('rebuilds the same state after a JSON round trip', () => {
    const events: InvoiceEvent[] = [...Invoice.create(createInvoiceInput())];
    let invoice = Invoice.fromEvents(events);
    for (const step of [
      (i: Invoice) => i.fail({ now: at(1) }),
      (i: Invoice) => i.pay({ paymentId: newPaymentId(), method: 'wallet', payer, now: at(2) }),
    ]) {
      const next = step(invoice);
      events.push(...next);
      invoice = invoice.apply(next);
    }
    expect(Invoice.fromEvents(JSON.parse(JSON.stringify(events)) as InvoiceEvent[]).state).toEqual(invoice.state);
    expect(invoice.version).toBe(3);
  });

  it('refuses a stream without its creation first', () => {
    expect(() => Invoice.fromEvents([])).toThrow(/starts with/);
    const created = Invoice.create(createInvoiceInput());
    expect(() => Invoice.fromEvents([...created, ...created])).toThrow(/created twice/);
  });
});
