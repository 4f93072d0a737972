// What each operations list is: its filters and ids, the command that lists it (the API's), its columns and its
// CSV. A list whose command does not exist yet has `list: null`: its page offers the search by id only.
import {
  INVOICE_STATUSES,
  PAYMENT_INTENT_STATUSES,
  PAYMENT_STATUSES,
  REFUND_STATUSES,
  type InvoiceResource,
  type ListResource,
  type PaymentIntentResource,
  type PaymentResource,
  type RefundResource,
} from '@payments/contracts';
import { ApiError, type CommandOptions } from '@payments/platform';
import type { RefundsClient } from '../../refunds/refunds.client';
import { PAYMENT_ID, REFUND_ID } from '../../refunds/list-refunds.query';
import type { SessionsClient } from '../../sessions-client/sessions.client';
import { parseListQuery as listCommandFields, type ListCommandFields, type ListKind } from '../filters/list-query';
import type { CsvValue } from './csv';
import { filterParams, type FilterName, type ListRequest, type ListShape } from './list-query';
import type { OperationsScope } from './object-history';
import type { OperationsKey } from './operations-messages';

export const INTENT_ID = /^pi_(live|test)_[A-Za-z0-9_-]{1,64}$/;
export const INVOICE_ID = /^inv_(test_)?[A-Za-z0-9_-]{1,64}$/;
export { PAYMENT_ID, REFUND_ID };

export type ListSection = 'payments' | 'payment-intents' | 'invoices' | 'refunds';

/** The owners' clients the operations views read and act through (the API's own). */
export interface OperationsClients {
  sessions: SessionsClient;
  refunds: RefundsClient;
}

export interface Column<T> {
  label: OperationsKey;
  /** Plain text of the cell (escaped by the page); the id column links to the object's page. */
  value: (item: T) => string | null;
  kind?: 'id' | 'money' | 'status' | 'date';
}

export interface ListDefinition<T extends { id: string }, K extends ListKind = ListKind> {
  section: ListSection;
  /** The list in the query-string parser's terms (it builds the owner's command). */
  kind: K;
  title: OperationsKey;
  shape: ListShape;
  list: (clients: OperationsClients, scope: OperationsScope, fields: ListCommandFields[K], caller: CommandOptions) => Promise<ListResource<T>>;
  columns: Column<T>[];
  csvHeader: string[];
  csvRow: (item: T) => CsvValue[];
}

/** The filters every list takes (the owners' ListFilter). */
const COMMON_FILTERS: readonly FilterName[] = ['status', 'from', 'to', 'amount_min', 'amount_max'];

/**
 * The owner's list command for the form's filters (the ones that passed the form's checks) and a page: built and
 * checked by the dashboard's query-string parser against the owner's schema. A refusal names the field at fault.
 */
export function listCommand<K extends ListKind>(
  kind: K,
  request: Pick<ListRequest, 'filters' | 'cursor'>,
  limit: number,
): { ok: true; fields: ListCommandFields[K] } | { ok: false; param: string; message: string } {
  const query: Record<string, string> = Object.fromEntries(filterParams(request.filters));
  if (request.cursor.starting_after) query.starting_after = request.cursor.starting_after;
  return listCommandFields(kind, query, { defaultLimit: limit });
}

/**
 * A page of a list after a cursor its owner does not know (another merchant's or environment's id, typed into the
 * URL): the owners refuse it as invalid_request; on a page it is what an id in the path would be, not found.
 */
export async function cursorInScope<T>(listing: Promise<T>): Promise<T> {
  try {
    return await listing;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_request' && (error.param === 'starting_after' || error.param === 'ending_before')) {
      throw new ApiError('not_found', 'No such object.', error.param);
    }
    throw error;
  }
}

/** One page of a list on screen. */
export const PAGE_SIZE = 25;

export const PAYMENTS: ListDefinition<PaymentResource, 'payments'> = {
  section: 'payments',
  kind: 'payments',
  title: 'paymentsTitle',
  shape: { filters: [...COMMON_FILTERS, 'external_ref'], choices: PAYMENT_STATUSES, idPattern: PAYMENT_ID, pagesBack: false },
  list: (clients, scope, fields, caller) => clients.refunds.listPayments({ ...scope, ...fields }, caller),
  columns: [
    { label: 'colId', value: (p) => p.id, kind: 'id' },
    { label: 'colAmount', value: (p) => p.amount, kind: 'money' },
    { label: 'colRefunded', value: (p) => p.refunded_amount, kind: 'money' },
    { label: 'colStatus', value: (p) => p.status, kind: 'status' },
    { label: 'colMethod', value: (p) => p.method },
    { label: 'colSource', value: (p) => p.source },
    { label: 'colCreated', value: (p) => p.created_at, kind: 'date' },
  ],
  csvHeader: ['id', 'amount', 'refunded_amount', 'fee', 'net', 'currency', 'status', 'method', 'source', 'created_at'],
  csvRow: (p) => [p.id, p.amount, p.refunded_amount, p.fee, p.net, p.currency, p.status, p.method, p.source, p.created_at],
};

export const REFUNDS: ListDefinition<RefundResource, 'refunds'> = {
  section: 'refunds',
  kind: 'refunds',
  title: 'refundsTitle',
  shape: { filters: [...COMMON_FILTERS, 'payment_id'], choices: REFUND_STATUSES, idPattern: REFUND_ID, pagesBack: false, paymentIdPattern: PAYMENT_ID },
  list: (clients, scope, fields, caller) => clients.refunds.listRefunds({ ...scope, ...fields }, caller),
  columns: [
    { label: 'colId', value: (r) => r.id, kind: 'id' },
    { label: 'colAmount', value: (r) => r.amount, kind: 'money' },
    { label: 'colStatus', value: (r) => r.status, kind: 'status' },
    { label: 'colPayment', value: (r) => r.payment_id },
    { label: 'colReason', value: (r) => r.reason },
    { label: 'colCreated', value: (r) => r.created_at, kind: 'date' },
  ],
  csvHeader: ['id', 'payment_id', 'amount', 'currency', 'status', 'reason', 'failure_reason', 'created_at', 'completed_at'],
  csvRow: (r) => [r.id, r.payment_id, r.amount, r.currency, r.status, r.reason, r.failure_reason, r.created_at, r.completed_at],
};

export const PAYMENT_INTENTS: ListDefinition<PaymentIntentResource, 'payment_intents'> = {
  section: 'payment-intents',
  kind: 'payment_intents',
  title: 'intentsTitle',
  shape: { filters: [...COMMON_FILTERS, 'external_ref'], choices: PAYMENT_INTENT_STATUSES, idPattern: INTENT_ID, pagesBack: false },
  list: (clients, scope, fields, caller) => clients.sessions.listPaymentIntents({ ...scope, ...fields }, caller),
  columns: [
    { label: 'colId', value: (i) => i.id, kind: 'id' },
    { label: 'colAmount', value: (i) => i.amount, kind: 'money' },
    { label: 'colStatus', value: (i) => i.status, kind: 'status' },
    { label: 'colExternalRef', value: (i) => i.external_ref },
    { label: 'colCreated', value: (i) => i.created_at, kind: 'date' },
  ],
  csvHeader: ['id', 'amount', 'currency', 'fee', 'net_amount', 'status', 'payment_method', 'external_ref', 'description', 'created_at', 'paid_at', 'payment_id'],
  csvRow: (i) => [i.id, i.amount, i.currency, i.fee, i.net_amount, i.status, i.payment_method, i.external_ref, i.description, i.created_at, i.paid_at, i.payment_id],
};

export const INVOICES: ListDefinition<InvoiceResource, 'invoices'> = {
  section: 'invoices',
  kind: 'invoices',
  title: 'invoicesTitle',
  shape: { filters: [...COMMON_FILTERS, 'external_ref'], choices: INVOICE_STATUSES, idPattern: INVOICE_ID, pagesBack: false },
  list: (clients, scope, fields, caller) => clients.sessions.listInvoices({ ...scope, ...fields }, caller),
  columns: [
    { label: 'colId', value: (i) => i.id, kind: 'id' },
    { label: 'colNumber', value: (i) => i.number },
    { label: 'colAmount', value: (i) => i.amount, kind: 'money' },
    { label: 'colStatus', value: (i) => i.status, kind: 'status' },
    { label: 'colExternalRef', value: (i) => i.external_ref },
    { label: 'colCreated', value: (i) => i.created_at, kind: 'date' },
  ],
  csvHeader: ['id', 'number', 'amount', 'currency', 'fee', 'net', 'status', 'external_ref', 'description', 'created_at', 'paid_at'],
  csvRow: (i) => [i.id, i.number, i.amount, i.currency, i.fee, i.net, i.status, i.external_ref, i.description, i.created_at, i.paid_at],
};

export const LISTS = { payments: PAYMENTS, refunds: REFUNDS, 'payment-intents': PAYMENT_INTENTS, invoices: INVOICES } as const;

/** Where the search box sends an id: the section its shape belongs to (else the section searched from: a 404). */
export function searchTarget(environment: string, from: ListSection, id: string): string {
  const section: ListSection = INTENT_ID.test(id) ? 'payment-intents' : INVOICE_ID.test(id) ? 'invoices' : REFUND_ID.test(id) ? 'refunds' : PAYMENT_ID.test(id) ? 'payments' : from;
  return `/dashboard/${environment}/${section}/${encodeURIComponent(id.slice(0, 200))}`;
}
