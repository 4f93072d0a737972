import { newInvoiceId } from '@payments/ids';
import { resolveInvoiceMethods } from '../commands/method-resolution';
import { createRequest, newSessionFields, type CreateSessionInput } from '../commands/session-inputs';
import { Invoice, type IntentPaymentMethod, type InvoiceResource } from '../domain';
import type { Environment } from '@payments/ids';
import type { InvoiceCommands } from './invoice.commands';

/** A merchant creates an invoice with its next number; the same idempotency key answers the invoice it made. */
export class CreateInvoice {
  constructor(
    private readonly invoices: InvoiceCommands,
    /** The methods a customer can use in an environment (intent-surface names). */
    private readonly usableIn: (environment: Environment) => readonly IntentPaymentMethod[],
  ) {}

  async execute(input: CreateSessionInput): Promise<InvoiceResource> {
    const id = newInvoiceId(input.scope.environment);
    return this.invoices.create(input.scope, createRequest(id, input), (number, now) =>
      Invoice.create({ ...newSessionFields(id, input, now), number, methods: resolveInvoiceMethods(input.params.methods, input.enabledMethods, this.usableIn(input.scope.environment)) }),
    );
  }
}
