// Test helpers for invoice specs (not exported from the domain index).
import { newInvoiceId, newPaymentId, type Environment } from '@payments/ids';
import { Invoice, type CreateInvoiceInput, type InvoiceStatus } from './invoice.aggregate';
import { at, T0 } from './payment-intent.fixtures';

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

export function newInvoice(overrides: Partial<CreateInvoiceInput> = {}): Invoice {
  return Invoice.fromEvents(Invoice.create(createInvoiceInput(overrides)));
}

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
