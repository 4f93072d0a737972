// Test helpers for invoice specs (not exported from the domain index).
import { newInvoiceId, newPaymentId, type Environment } from '@payments/ids';
import { Invoice, type CreateInvoiceInput, type InvoiceStatus } from './invoice.aggregate';
import { at, T0 } from './payment-intent.fixtures';

/** What the order-42 invoice of createInvoiceInput shows of its money and reference while unpaid. */
export const ORDER_42_INVOICE_UNPAID = { amount: '74.00', currency: 'USD', fee: '0.00', net: '74.00', external_ref: 'order-42', description: 'Order 42' } as const;

export function createInvoiceInput(overrides: Partial<CreateInvoiceInput> = {}): CreateInvoiceInput {
  const environment: Environment = overrides.environment ?? 'live';
  return {
    id: newInvoiceId(environment),
    number: '1001',
    merchantId: 'mer_1',
    environment,
    amountCents: 7400,
    externalRef: 'order-42',
    description: 'Order 42',
    methods: ['wallet', 'lahza', 'crypto'],
    now: T0,
    ...overrides,
  };
}

/** A pending invoice, rebuilt from its creation as the pipeline does. */
export const newInvoice = (overrides: Partial<CreateInvoiceInput> = {}): Invoice => Invoice.fromEvents(Invoice.create(createInvoiceInput(overrides)));

/** An invoice brought into the status through the public commands (default expiry: 24 h after T0). */
export function invoiceIn(status: InvoiceStatus, overrides: Partial<CreateInvoiceInput> = {}): Invoice {
  const invoice = newInvoice(overrides);
  switch (status) {
    case 'pending':
      return invoice;
    case 'paid':
      return invoice.apply(invoice.pay({ paymentId: newPaymentId(), method: 'wallet', now: at(20) }));
    case 'failed':
      return invoice.apply(invoice.fail({ method: 'lahza', reason: 'card_declined', now: at(20) }));
    case 'expired':
      return invoice.apply(invoice.expire(at(86_400)));
  }
}
