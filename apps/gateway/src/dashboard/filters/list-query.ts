// The dashboard's list filters as they arrive in a query string (`?status=&from=&to=&external_ref=&amount=...`),
// turned into the fields of the owner's list command, or into a clear refusal naming the query parameter. The
// owner checks the command again against the same schema (libs/contracts), so the two cannot disagree.
import {
  INVOICE_STATUSES,
  PAYMENT_INTENT_STATUSES,
  PAYMENT_STATUSES,
  REFUND_STATUSES,
  REFUNDS_COMMANDS,
  resolveListFilter,
  SESSIONS_COMMANDS,
  validateCommand,
  type CheckedCommandName,
  type ListInvoicesCommand,
  type ListPaymentIntentsCommand,
  type ListPaymentsCommand,
  type ListRefundsCommand,
} from '@payments/contracts';
import { formatMoney, parseMoneyString } from '@payments/money';

export type ListKind = 'payment_intents' | 'invoices' | 'payments' | 'refunds';

type Unscoped<C> = Omit<C, 'merchant_id' | 'environment'>;

/** The command fields (without merchant and environment) a parsed query gives, per list. */
export interface ListCommandFields {
  payment_intents: Unscoped<ListPaymentIntentsCommand>;
  invoices: Unscoped<ListInvoicesCommand>;
  payments: Unscoped<ListPaymentsCommand>;
  refunds: Unscoped<ListRefundsCommand>;
}

export type ParsedListQuery<K extends ListKind> = { ok: true; fields: ListCommandFields[K] } | { ok: false; param: string; message: string };

/** The query parameters the dashboard's list pages take. */
export const LIST_QUERY_PARAMS = ['status', 'from', 'to', 'external_ref', 'amount', 'amount_min', 'amount_max', 'payment_id', 'limit', 'starting_after'] as const;
export type ListQueryParam = (typeof LIST_QUERY_PARAMS)[number];

interface ListDefinition {
  readonly command: CheckedCommandName;
  readonly statuses: readonly string[];
  readonly externalRef: boolean;
  readonly paymentId: boolean;
  /** What starting_after must look like (an id of this list). */
  readonly cursor: RegExp;
}

const LISTS: Record<ListKind, ListDefinition> = {
  payment_intents: { command: SESSIONS_COMMANDS.listPaymentIntents, statuses: PAYMENT_INTENT_STATUSES, externalRef: true, paymentId: false, cursor: /^pi_[A-Za-z0-9_-]{1,96}$/ },
  invoices: { command: SESSIONS_COMMANDS.listInvoices, statuses: INVOICE_STATUSES, externalRef: true, paymentId: false, cursor: /^inv_[A-Za-z0-9_-]{1,96}$/ },
  payments: { command: REFUNDS_COMMANDS.listPayments, statuses: PAYMENT_STATUSES, externalRef: true, paymentId: false, cursor: /^[1-9][0-9]{0,18}$/ },
  refunds: { command: REFUNDS_COMMANDS.listRefunds, statuses: REFUND_STATUSES, externalRef: false, paymentId: true, cursor: /^re_[A-Za-z0-9]{24}$/ },
};

/** The command field each query parameter fills (for naming the parameter when the owner's check refuses). */
const PARAM_OF_FIELD: Record<string, ListQueryParam> = {
  created_gte: 'from',
  created_lt: 'to',
  amount_gte: 'amount_min',
  amount_lte: 'amount_max',
};

export const DEFAULT_LIST_LIMIT = 25;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// A date-time with a zone, or without one (an HTML datetime-local field), read as UTC.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?$/;

class Refusal {
  constructor(
    readonly param: ListQueryParam,
    readonly message: string,
  ) {}
}

/** One query value: the first when repeated, trimmed; an empty field (a form's blank input) is absent. */
function valueOf(query: Record<string, unknown>, param: ListQueryParam): string | undefined {
  const raw = query[param];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Refusal(param, `${param} must be text`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** `from`: a date is its first moment (UTC); a date-time is taken as it is. */
function timeOf(param: 'from' | 'to', value: string): string {
  const date = DATE_ONLY.exec(value);
  if (date) {
    const start = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])));
    // A real calendar date only (2026-02-30 is refused, not moved to March).
    if (start.toISOString().slice(0, 10) !== value) throw new Refusal(param, `${param} is not a date: ${value}`);
    // `to` names the last day shown: the list stops before the next day begins.
    if (param === 'to') start.setUTCDate(start.getUTCDate() + 1);
    return start.toISOString();
  }
  const dateTime = DATE_TIME.exec(value);
  const parsed = dateTime ? new Date(dateTime[1] ? value : `${value}Z`) : null;
  if (!parsed || Number.isNaN(parsed.getTime())) throw new Refusal(param, `${param} must be a date (YYYY-MM-DD) or a date and time (ISO 8601)`);
  return parsed.toISOString();
}

function amountOf(param: 'amount' | 'amount_min' | 'amount_max', value: string): string {
  const parsed = parseMoneyString(value, { minCents: 1 });
  if (!parsed.ok) throw new Refusal(param, `${param} must be an amount in USD such as 12.50 (${parsed.message})`);
  return formatMoney(parsed.cents);
}

function limitOf(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 100) throw new Refusal('limit', 'limit must be a whole number from 1 to 100');
  return Number(value);
}

function build(kind: ListKind, query: Record<string, unknown>, defaultLimit: number): Record<string, unknown> {
  const list = LISTS[kind];
  const fields: Record<string, unknown> = { limit: limitOf(valueOf(query, 'limit'), defaultLimit) };
  const status = valueOf(query, 'status');
  if (status !== undefined) {
    if (!list.statuses.includes(status)) throw new Refusal('status', `status must be one of ${list.statuses.join(', ')}`);
    fields.status = status;
  }
  const from = valueOf(query, 'from');
  if (from !== undefined) fields.created_gte = timeOf('from', from);
  const to = valueOf(query, 'to');
  if (to !== undefined) fields.created_lt = timeOf('to', to);
  const amount = valueOf(query, 'amount');
  if (amount !== undefined) fields.amount = amountOf('amount', amount);
  const amountMin = valueOf(query, 'amount_min');
  if (amountMin !== undefined) fields.amount_gte = amountOf('amount_min', amountMin);
  const amountMax = valueOf(query, 'amount_max');
  if (amountMax !== undefined) fields.amount_lte = amountOf('amount_max', amountMax);
  const externalRef = valueOf(query, 'external_ref');
  if (externalRef !== undefined) {
    if (!list.externalRef) throw new Refusal('external_ref', 'this list has no external_ref filter');
    if (externalRef.length > 120) throw new Refusal('external_ref', 'external_ref is at most 120 characters');
    fields.external_ref = externalRef;
  }
  const paymentId = valueOf(query, 'payment_id');
  if (paymentId !== undefined) {
    if (!list.paymentId) throw new Refusal('payment_id', 'this list has no payment_id filter');
    if (!LISTS.payments.cursor.test(paymentId)) throw new Refusal('payment_id', 'payment_id must be a payment id');
    fields.payment_id = paymentId;
  }
  const after = valueOf(query, 'starting_after');
  if (after !== undefined) {
    if (!list.cursor.test(after)) throw new Refusal('starting_after', 'starting_after is not an id of this list');
    fields.starting_after = after;
  }
  return fields;
}

/**
 * The list command's fields from a page's query string (Fastify's parsed query: strings, or arrays of them when
 * repeated). Dates are UTC days: `from=2026-11-01&to=2026-11-30` is all of November. Parameters other than
 * LIST_QUERY_PARAMS are left alone (a page may have its own). A refusal names the query parameter at fault.
 */
export function parseListQuery<K extends ListKind>(kind: K, query: Record<string, unknown>, options: { defaultLimit?: number } = {}): ParsedListQuery<K> {
  let fields: Record<string, unknown>;
  try {
    fields = build(kind, query, options.defaultLimit ?? DEFAULT_LIST_LIMIT);
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, param: error.param, message: error.message };
    throw error;
  }
  const resolved = resolveListFilter(fields);
  if (!resolved.ok) return refusal(resolved.param, resolved.message);
  // The owner's own schema, as a last word: nothing passes here that the owner would refuse.
  const check = validateCommand(LISTS[kind].command, { merchant_id: 'm', environment: 'test', ...fields });
  if (!check.ok) return refusal(check.param, check.message);
  return { ok: true, fields: fields as unknown as ListCommandFields[K] };
}

/** A refusal of a command field, named and worded as the query parameter that filled it. */
function refusal(field: string, message: string): { ok: false; param: string; message: string } {
  const param = PARAM_OF_FIELD[field] ?? field;
  let worded = message;
  for (const [commandField, queryParam] of Object.entries(PARAM_OF_FIELD)) worded = worded.split(commandField).join(queryParam);
  return { ok: false, param, message: worded };
}

/**
 * The query string of a list page with these filters (for the next page's link and the CSV export), from the
 * page's own query: the list parameters kept, `overrides` applied (undefined removes one).
 */
export function listQueryString(query: Record<string, unknown>, overrides: Partial<Record<ListQueryParam, string | undefined>> = {}): string {
  const params = new URLSearchParams();
  for (const param of LIST_QUERY_PARAMS) {
    const value = param in overrides ? overrides[param] : valueOrUndefined(query[param]);
    if (value !== undefined && value !== '') params.set(param, value);
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function valueOrUndefined(raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.trim() : undefined;
}
