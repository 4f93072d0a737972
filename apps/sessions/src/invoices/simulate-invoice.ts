import { newPaymentId } from '@payments/ids';
import type { SimulateInvoiceReply } from '@payments/contracts';
import { assertTestMode, type SimulateSessionInput } from '../commands/session-inputs';
import type { InvoicePaymentMethod } from '../domain';
import type { InvoiceCommands } from './invoice.commands';

/** Test mode: an invoice paid (method defaults to wallet), failed, or expired at once. */
export class SimulateInvoice {
  constructor(private readonly invoices: InvoiceCommands) {}

  async execute(input: SimulateSessionInput<'paid' | 'failed' | 'expired', InvoicePaymentMethod>): Promise<SimulateInvoiceReply> {
    assertTestMode(input.scope, 'invoices');
    const { result, method } = input;
    const resource = await this.invoices.change(input.scope, input.id, input.caller, (invoice, now) => {
      switch (result) {
        case 'paid':
          return invoice.simulate({ result, method, paymentId: newPaymentId(), now });
        case 'failed':
          return invoice.simulate({ result, method, now });
        case 'expired':
          return invoice.simulate({ result, now });
      }
    });
    return { id: resource.id, status: resource.status, environment: 'test' };
  }
}
