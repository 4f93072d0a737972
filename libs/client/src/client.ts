import { Transport, type ClientOptions, type RequestOptions, type WithResponse } from './http';
import { AutoPagingList } from './pagination';
import type * as T from './types';
import { webhooks } from './webhooks';

const id = (value: string) => encodeURIComponent(value);

/**
 * The payment service's API: one resource object per surface, methods named after the routes of the OpenAPI
 * document. Every POST carries an Idempotency-Key (yours, or one generated per call and kept across retries).
 */
export class Payments {
  readonly paymentIntents;
  readonly invoices;
  readonly payments;
  readonly refunds;
  readonly balance;
  readonly balanceTransactions;
  readonly webhookEndpoints;
  /** Webhook verification and test signing (no API call). */
  readonly webhooks = webhooks;

  constructor(options: ClientOptions) {
    const http = new Transport(options);

    this.paymentIntents = {
      /** POST /api/v1/payment-intents */
      create: (params: T.PaymentIntentCreateParams, options?: RequestOptions): Promise<WithResponse<T.PaymentIntent>> =>
        http.request('POST', '/api/v1/payment-intents', params, options),
      /** GET /api/v1/payment-intents/{id} */
      retrieve: (intentId: string, options?: RequestOptions): Promise<WithResponse<T.PaymentIntent>> =>
        http.request('GET', `/api/v1/payment-intents/${id(intentId)}`, undefined, options),
      /** POST /api/v1/payment-intents/{id}/simulate (test keys only). */
      simulate: (intentId: string, params: T.PaymentIntentSimulateParams, options?: RequestOptions): Promise<WithResponse<T.PaymentIntent>> =>
        http.request('POST', `/api/v1/payment-intents/${id(intentId)}/simulate`, params, options),
      /** POST /api/v1/payment-intents/{id}/cancel */
      cancel: (intentId: string, options?: RequestOptions): Promise<WithResponse<T.PaymentIntent>> =>
        http.request('POST', `/api/v1/payment-intents/${id(intentId)}/cancel`, undefined, options),
    };

    this.invoices = {
      /** POST /api/v1/invoices */
      create: (params: T.InvoiceCreateParams, options?: RequestOptions): Promise<WithResponse<T.Invoice>> => http.request('POST', '/api/v1/invoices', params, options),
      /** GET /api/v1/invoices/{id} */
      retrieve: (invoiceId: string, options?: RequestOptions): Promise<WithResponse<T.Invoice>> =>
        http.request('GET', `/api/v1/invoices/${id(invoiceId)}`, undefined, options),
      /** POST /api/v1/invoices/{id}/simulate (test keys only). */
      simulate: (invoiceId: string, params: T.InvoiceSimulateParams, options?: RequestOptions): Promise<WithResponse<T.InvoiceSimulateResult>> =>
        http.request('POST', `/api/v1/invoices/${id(invoiceId)}/simulate`, params, options),
    };

    this.payments = {
      /** GET /api/v1/payments/{id}: a payment with its refunds. */
      retrieve: (paymentId: string, options?: RequestOptions): Promise<WithResponse<T.Payment>> =>
        http.request('GET', `/api/v1/payments/${id(paymentId)}`, undefined, options),
      /** GET /api/v1/payments, newest first: await for a page, or `for await` over every payment. */
      list: (params: Omit<T.PaymentListParams, 'starting_after'> = {}, options?: RequestOptions): AutoPagingList<T.Payment> =>
        new AutoPagingList((after) => http.request('GET', '/api/v1/payments', undefined, options, { ...params, starting_after: after })),
    };

    this.refunds = {
      /** POST /api/v1/payments/{id}/refunds: all of what is left (no amount) or a part. */
      create: (paymentId: string, params: T.RefundCreateParams = {}, options?: RequestOptions): Promise<WithResponse<T.Refund>> =>
        http.request('POST', `/api/v1/payments/${id(paymentId)}/refunds`, params, options),
      /** GET /api/v1/refunds/{id} */
      retrieve: (refundId: string, options?: RequestOptions): Promise<WithResponse<T.Refund>> => http.request('GET', `/api/v1/refunds/${id(refundId)}`, undefined, options),
      /** GET /api/v1/refunds (optionally of one payment). */
      list: (params: Omit<T.RefundListParams, 'starting_after'> = {}, options?: RequestOptions): AutoPagingList<T.Refund> =>
        new AutoPagingList((after) => http.request('GET', '/api/v1/refunds', undefined, options, { ...params, starting_after: after })),
    };

    this.balance = {
      /** GET /api/v1/balance */
      retrieve: (options?: RequestOptions): Promise<WithResponse<T.Balance>> => http.request('GET', '/api/v1/balance', undefined, options),
    };

    this.balanceTransactions = {
      /** GET /api/v1/balance-transactions, newest first. */
      list: (params: Omit<T.BalanceTransactionListParams, 'starting_after' | 'ending_before'> = {}, options?: RequestOptions): AutoPagingList<T.BalanceTransaction> =>
        new AutoPagingList((after) => http.request('GET', '/api/v1/balance-transactions', undefined, options, { ...params, starting_after: after })),
    };

    this.webhookEndpoints = {
      /** POST /api/v1/webhook-endpoints: the answer carries the `whsec_…` secret, shown once. */
      create: (params: T.WebhookEndpointCreateParams, options?: RequestOptions): Promise<WithResponse<T.WebhookEndpointWithSecret>> =>
        http.request('POST', '/api/v1/webhook-endpoints', params, options),
      /** GET /api/v1/webhook-endpoints (all of the key's environment, one page). */
      list: (options?: RequestOptions): Promise<WithResponse<T.WebhookEndpointList>> => http.request('GET', '/api/v1/webhook-endpoints', undefined, options),
      /** GET /api/v1/webhook-endpoints/{id} */
      retrieve: (endpointId: string, options?: RequestOptions): Promise<WithResponse<T.WebhookEndpoint>> =>
        http.request('GET', `/api/v1/webhook-endpoints/${id(endpointId)}`, undefined, options),
      /** PATCH /api/v1/webhook-endpoints/{id}: a new address or new event types; the secret and deliveries stay. */
      update: (endpointId: string, params: T.WebhookEndpointUpdateParams, options?: RequestOptions): Promise<WithResponse<T.WebhookEndpoint>> =>
        http.request('PATCH', `/api/v1/webhook-endpoints/${id(endpointId)}`, params, options),
      /** DELETE /api/v1/webhook-endpoints/{id} */
      delete: (endpointId: string, options?: RequestOptions): Promise<WithResponse<T.WebhookEndpointDeleted>> =>
        http.request('DELETE', `/api/v1/webhook-endpoints/${id(endpointId)}`, undefined, options),
      /** POST /api/v1/webhook-endpoints/{id}/roll-secret: a new secret; the old one keeps signing for `expires_in_hours`. */
      rollSecret: (endpointId: string, params: T.WebhookSecretRollParams = {}, options?: RequestOptions): Promise<WithResponse<T.WebhookSecretRolled>> =>
        http.request('POST', `/api/v1/webhook-endpoints/${id(endpointId)}/roll-secret`, params, options),
      /** POST /api/v1/webhook-endpoints/{id}/enable */
      enable: (endpointId: string, options?: RequestOptions): Promise<WithResponse<T.WebhookEndpointEnabled>> =>
        http.request('POST', `/api/v1/webhook-endpoints/${id(endpointId)}/enable`, undefined, options),
      /** GET /api/v1/webhook-endpoints/{id}/deliveries, newest first. */
      listDeliveries: (endpointId: string, params: Omit<T.WebhookDeliveryListParams, 'starting_after'> = {}, options?: RequestOptions): AutoPagingList<T.WebhookDelivery> =>
        new AutoPagingList((after) => http.request('GET', `/api/v1/webhook-endpoints/${id(endpointId)}/deliveries`, undefined, options, { ...params, starting_after: after })),
      /** POST /api/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend */
      resendDelivery: (endpointId: string, deliveryId: string, options?: RequestOptions): Promise<WithResponse<T.WebhookDeliveryResent>> =>
        http.request('POST', `/api/v1/webhook-endpoints/${id(endpointId)}/deliveries/${id(deliveryId)}/resend`, undefined, options),
      /** POST /api/v1/webhook-endpoints/{id}/replay: the events of a time range, sent again. */
      replay: (endpointId: string, params: T.WebhookReplayParams, options?: RequestOptions): Promise<WithResponse<T.WebhookReplayed>> =>
        http.request('POST', `/api/v1/webhook-endpoints/${id(endpointId)}/replay`, params, options),
      /** POST /api/v1/webhook-endpoints/{id}/test: a signed test event to the endpoint. */
      sendTestEvent: (endpointId: string, options?: RequestOptions): Promise<WithResponse<T.WebhookTestSent>> =>
        http.request('POST', `/api/v1/webhook-endpoints/${id(endpointId)}/test`, undefined, options),
    };
  }
}
