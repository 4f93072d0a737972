import type { SessionCommands } from '../command-pipeline/session-commands';
import type { Invoice, InvoiceEvent, InvoiceResource, InvoiceState } from '../domain';

/** The command pipeline for invoices; a create gets the invoice number the store allocates with it. */
export type InvoiceCommands = SessionCommands<Invoice, InvoiceState, InvoiceEvent, InvoiceResource, string>;
