// The refunds service's command contract (the gateway is the caller) and the data of the refund events it
// publishes on `<namespace>.refunds.events.v1`. Plain types; the schemas are in refund.schemas.ts.

import type { ListFilter, ListPage } from './list-filters';

export const REFUNDS_SERVICE = 'refunds';

export const REFUNDS_COMMANDS = {
  createRefund: 'refunds.create',
  getRefund: 'refunds.get',
  listRefunds: 'refunds.list',
  getPayment: 'payments.get',
  listPayments: 'payments.list',
  /** Internal (the gateway, after a provider's signed notification): the provider settled this refund; take its outcome now. */
  providerRefundSettled: 'refunds.provider-settled',
} as const;

export type RefundsCommandName = (typeof REFUNDS_COMMANDS)[keyof typeof REFUNDS_COMMANDS];

export type RefundsEnvironment = 'live' | 'test';

export interface RefundsScope {
  merchant_id: string;
  environment: RefundsEnvironment;
}

/** The API body of `POST /api/v1/payments/{id}/refunds`, as validated by the gateway. */
export interface RefundParams {
  /** MoneyString; what remains of the payment when absent. */
  amount?: string;
  reason?: string;
}

export interface CreateRefundCommand extends RefundsScope {
  payment_id: string;
  /** The request's Idempotency-Key: one refund per (merchant, environment, key), enforced where it is created. */
  idempotency_key: string;
  params: RefundParams;
}

export interface GetRefundCommand extends RefundsScope {
  id: string;
}

export interface GetPaymentCommand extends RefundsScope {
  id: string;
}

/** The API's list (limit, starting_after) and the dashboard's filters (created = paid, for a payment). */
export interface ListPaymentsCommand extends RefundsScope, ListFilter<PaymentStatus>, ListPage {
  /** Exactly this external_ref of the intent or invoice paid (payments recorded before it was kept have none). */
  external_ref?: string;
}

export interface ProviderRefundSettledCommand extends RefundsScope {
  refund_id: string;
}

export interface ListRefundsCommand extends RefundsScope, ListFilter<RefundStatus>, ListPage {
  payment_id?: string;
}

export type RefundStatus = 'pending' | 'completed' | 'failed';

export interface RefundResource {
  id: string; // re_…
  object: 'refund';
  payment_id: string;
  amount: string;
  currency: 'USD';
  reason: string | null;
  status: RefundStatus;
  failure_reason: string | null;
  environment: RefundsEnvironment;
  created_at: string;
  completed_at: string | null;
}

export type PaymentStatus = 'succeeded' | 'partially_refunded' | 'refunded';

export interface PaymentResource {
  id: string;
  object: 'payment';
  amount: string;
  /** Completed refunds. */
  refunded_amount: string;
  currency: 'USD';
  status: PaymentStatus;
  /** The intent (`pi_…`) or invoice (`inv_…`) it paid. */
  source: string;
  method: string;
  fee: string;
  net: string;
  environment: RefundsEnvironment;
  created_at: string;
  /** Oldest first. */
  refunds: RefundResource[];
}

export interface ListResource<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export interface RefundsCommandMap {
  'refunds.create': { body: CreateRefundCommand; reply: RefundResource };
  'refunds.get': { body: GetRefundCommand; reply: RefundResource };
  'refunds.list': { body: ListRefundsCommand; reply: ListResource<RefundResource> };
  'payments.get': { body: GetPaymentCommand; reply: PaymentResource };
  'payments.list': { body: ListPaymentsCommand; reply: ListResource<PaymentResource> };
  'refunds.provider-settled': { body: ProviderRefundSettledCommand; reply: RefundResource };
}

/**
 * `data` of every `refund.*` event: the refund as GET shows it right after the change, and the payment it returns
 * money from (its source decides the webhook's surface: invoice payments are signed with the Service-* headers).
 */
export interface RefundEventData {
  object: RefundResource;
  payment: { id: string; source: string; method: string; amount: string; currency: 'USD' };
}
