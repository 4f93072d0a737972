import { newInvoiceId } from '@payments/ids';
import { resolveInvoiceMethods } from '../commands/method-resolution';
import { createRequest, newSessionFields, type CreateSessionInput } from '../commands/session-inputs';
import { Invoice, type InvoiceResource } from '../domain';
import type { InvoiceCommands } from './invoice.commands';

/** A merchant creates an invoice with its next number; the same idempotency key answers the invoice it made. */
export class CreateInvoice {
  constructor(private readonly invoices: InvoiceCommands) {}

  async execute(input: CreateSessionInput): Promise<InvoiceResource> {
    const id = newInvoiceId(input.scope.environment);
    return this.invoices.create(input.scope, createRequest(id, input), (number, now) =>
      Invoice.create({ ...newSessionFields(id, input, now), number, methods: resolveInvoiceMethods(input.params.methods, input.enabledMethods) }),
    );
  }
}
