// The filters of the operations lists (payment intents, invoices, payments, refunds): one definition of their
// fields, limits and cross-field rules, shared by the gateway's query-string parser and the owners, which check
// every list command against these before they query. Plain TypeScript, no framework.
import { parseMoneyString } from '@payments/money';

/** Filters every list takes; each is optional and they combine with AND. Times are ISO 8601 with a zone. */
export interface ListFilter<S extends string = string> {
  /** The status as GET shows it now (a session past expires_at that is not final reads as `expired`). */
  status?: S;
  /** Created at or after (payments: paid at or after). */
  created_gte?: string;
  /** Created before. */
  created_lt?: string;
  /** MoneyString: exactly this amount. Not with amount_gte/amount_lte. */
  amount?: string;
  /** MoneyString: at least this amount. */
  amount_gte?: string;
  /** MoneyString: at most this amount. */
  amount_lte?: string;
}

/** Paging of every list: newest first on (created_at, id); `starting_after` is the last id of the previous page. */
export interface ListPage {
  /** 1..100. */
  limit: number;
  starting_after?: string;
}

export const PAYMENT_INTENT_STATUSES = ['requires_payment_method', 'processing', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export const INVOICE_STATUSES = ['pending', 'paid', 'failed', 'expired'] as const;
export const PAYMENT_STATUSES = ['succeeded', 'partially_refunded', 'refunded'] as const;
export const REFUND_STATUSES = ['pending', 'completed', 'failed'] as const;

/** An amount to compare with: any cent up to the largest payment. */
export const FILTER_AMOUNT_SCHEMA = {
  type: 'string',
  pattern: '^\\d+(?:\\.\\d{1,2})?$',
  'x-money': { min: '0.01', max: '999999.99' },
} as const;
/** ISO 8601 date-time with a zone (RFC 3339). */
export const FILTER_TIME_SCHEMA = { type: 'string', format: 'date-time', maxLength: 40 } as const;
export const EXTERNAL_REF_FILTER_SCHEMA = { type: 'string', minLength: 1, maxLength: 120 } as const;

/** The schema properties of ListFilter with the given statuses, plus the paging fields (`cursor`: an id's schema). */
export function listFilterProperties(statuses: readonly string[], cursor: object) {
  return {
    status: { type: 'string', enum: statuses },
    created_gte: FILTER_TIME_SCHEMA,
    created_lt: FILTER_TIME_SCHEMA,
    amount: FILTER_AMOUNT_SCHEMA,
    amount_gte: FILTER_AMOUNT_SCHEMA,
    amount_lte: FILTER_AMOUNT_SCHEMA,
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    starting_after: cursor,
  } as const;
}

export interface FilterProblem {
  param: string;
  message: string;
}

/** A filter in the owners' terms: cents and Dates, null where absent. */
export interface ResolvedListFilter<S extends string = string> {
  status: S | null;
  createdGte: Date | null;
  createdLt: Date | null;
  /** Inclusive bounds in cents; an exact amount sets both. */
  amountMinCents: number | null;
  amountMaxCents: number | null;
}

function cents(value: string | undefined): number | null {
  if (value === undefined) return null;
  const parsed = parseMoneyString(value, { minCents: 0 });
  return parsed.ok ? parsed.cents : null;
}

/**
 * The rules between fields that a JSON Schema does not state: an exact amount is not combined with a range, and a
 * range is not empty. Fields are assumed to have passed their schema. Answers the filter in cents and Dates, or
 * the first problem, naming the field.
 */
export function resolveListFilter<S extends string>(filter: ListFilter<S>): { ok: true; filter: ResolvedListFilter<S> } | ({ ok: false } & FilterProblem) {
  if (filter.amount !== undefined && (filter.amount_gte !== undefined || filter.amount_lte !== undefined)) {
    return { ok: false, param: 'amount', message: 'amount is an exact amount: give it alone, or a range with amount_gte/amount_lte' };
  }
  const exact = cents(filter.amount);
  const min = exact ?? cents(filter.amount_gte);
  const max = exact ?? cents(filter.amount_lte);
  if (min !== null && max !== null && min > max) return { ok: false, param: 'amount_gte', message: 'amount_gte must not be above amount_lte' };
  const createdGte = filter.created_gte === undefined ? null : new Date(filter.created_gte);
  const createdLt = filter.created_lt === undefined ? null : new Date(filter.created_lt);
  for (const [param, date] of [['created_gte', createdGte], ['created_lt', createdLt]] as const) {
    if (date !== null && Number.isNaN(date.getTime())) return { ok: false, param, message: `${param} must be an ISO 8601 date-time` };
  }
  if (createdGte && createdLt && createdGte.getTime() >= createdLt.getTime()) {
    return { ok: false, param: 'created_lt', message: 'created_lt must be after created_gte' };
  }
  return { ok: true, filter: { status: filter.status ?? null, createdGte, createdLt, amountMinCents: min, amountMaxCents: max } };
}
