// The public event of each stored invoice event; data.object is the invoice as GET shows it right after it, and
// invoice.paid also carries the payment the ledger books.
import { newEnvelope, type EventEnvelope, type PublicEventType } from '@payments/events';
import { formatMoney } from '@payments/money';
import type { InvoiceEventData, PaymentEventData } from '@payments/contracts';
import { Invoice, toInvoiceResource, type InvoiceEvent, type InvoiceState } from '../domain';
import type { PublicEventContext } from '../shared/public-event-context';

const PUBLIC_TYPES: Record<InvoiceEvent['type'], PublicEventType> = {
  InvoiceCreated: 'invoice.created',
  InvoicePaid: 'invoice.paid',
  InvoicePaymentFailed: 'invoice.payment_failed',
  InvoiceExpired: 'invoice.expired',
};

export function invoicePaymentData(state: InvoiceState): PaymentEventData {
  if (state.payment === null) throw new Error(`invoice ${state.id} is not paid`);
  return {
    id: state.payment.reference,
    method: state.payment.method,
    amount: formatMoney(state.amountCents),
    fee: formatMoney(state.feeCents),
    net: formatMoney(state.netCents),
    currency: state.currency,
  };
}

/** Envelopes of `events` appended after `before` (null for a new stream), sequence = the event's stream version. */
export function invoiceEnvelopes(
  before: Invoice | null,
  events: readonly InvoiceEvent[],
  context: PublicEventContext,
): EventEnvelope<InvoiceEventData>[] {
  let invoice = before;
  return events.map((event) => {
    invoice = invoice === null ? Invoice.fromEvents([event]) : invoice.apply([event]);
    const data: InvoiceEventData = {
      object: toInvoiceResource(invoice.state, { checkoutBaseUrl: context.checkoutBaseUrl, now: context.now }),
    };
    if (event.type === 'InvoicePaid') data.payment = invoicePaymentData(invoice.state);
    return newEnvelope({
      type: PUBLIC_TYPES[event.type],
      aggregate_id: invoice.id,
      aggregate_type: 'invoice',
      sequence: invoice.version,
      merchant_id: context.metadata.merchant_id,
      environment: context.metadata.environment,
      correlation_id: context.metadata.correlation_id,
      causation_id: context.metadata.causation_id,
      occurred_at: context.now,
      data,
    });
  });
}
