import type { Environment } from '@payments/ids';
import { SESSIONS_COMMANDS, type INVOICE_METHODS, type SimulateInvoiceReply } from '@payments/contracts';
import { parseCommand } from '../commands/command-input';
import { invoiceMethodNamed } from '../commands/method-resolution';
import { SessionHandlers } from '../commands/session-handlers';
import type { IntentPaymentMethod, InvoiceResource } from '../domain';
import { CreateInvoice } from './create-invoice';
import type { InvoiceCommands } from './invoice.commands';
import { SimulateInvoice } from './simulate-invoice';

/** The invoice commands as they arrive, each handed to its use case once its body passed its schema. */
export class InvoiceHandlers extends SessionHandlers<InvoiceResource> {
  private readonly simulating: SimulateInvoice;

  constructor(invoices: InvoiceCommands, usableIn: (environment: Environment) => readonly IntentPaymentMethod[]) {
    super({ create: SESSIONS_COMMANDS.createInvoice, get: SESSIONS_COMMANDS.getInvoice }, new CreateInvoice(invoices, usableIn), invoices);
    this.simulating = new SimulateInvoice(invoices);
  }

  async simulate(body: unknown, correlationId: string, commandId?: string): Promise<SimulateInvoiceReply> {
    const { command, ...scope } = parseCommand(SESSIONS_COMMANDS.simulateInvoice, body);
    const methodName = command.method as (typeof INVOICE_METHODS)[number] | undefined;
    return this.simulating.execute({
      scope,
      id: command.id as string,
      result: command.result as 'paid' | 'failed' | 'expired',
      method: methodName === undefined ? undefined : (invoiceMethodNamed(methodName) ?? undefined),
      caller: { correlationId, commandId },
    });
  }
}
