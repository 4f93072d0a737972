// Request and response types, picked out of the generated OpenAPI types (./generated/openapi.ts) by path and
// method, so they follow the gateway's document and never drift from it by hand.
import type { components, paths } from './generated/openapi';

type Schemas = components['schemas'];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Responses<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R } ? R : never;
/** The JSON body of a route's answer with the given status. */
export type ResponseOf<P extends keyof paths, M extends keyof paths[P], S extends number> = S extends keyof Responses<P, M> ? Json<Responses<P, M>[S]> : never;
/** The query parameters of a route. */
export type QueryOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** Decimal US dollars as a string, at most two decimals: `"74"`, `"74.5"`, `"74.00"` (never a float). */
export type MoneyString = string;

export type PaymentIntent = ResponseOf<'/api/v1/payment-intents/{id}', 'get', 200>;
export type PaymentIntentCreateParams = Schemas['CreatePaymentIntentDto'];
export type PaymentIntentSimulateParams = Schemas['SimulatePaymentIntentDto'];
export type Customer = Schemas['CustomerDto'];

export type Invoice = ResponseOf<'/api/v1/invoices/{id}', 'get', 200>;
export type InvoiceCreateParams = Schemas['CreateInvoiceDto'];
export type InvoiceSimulateParams = Schemas['SimulateInvoiceDto'];
export type InvoiceSimulateResult = ResponseOf<'/api/v1/invoices/{id}/simulate', 'post', 200>;

export type Payment = ResponseOf<'/api/v1/payments/{id}', 'get', 200>;
export type PaymentListParams = QueryOf<'/api/v1/payments', 'get'>;
export type Refund = ResponseOf<'/api/v1/refunds/{id}', 'get', 200>;
export type RefundCreateParams = Schemas['CreateRefundDto'];
export type RefundListParams = QueryOf<'/api/v1/refunds', 'get'>;

export type Balance = ResponseOf<'/api/v1/balance', 'get', 200>;
export type BalanceTransaction = ResponseOf<'/api/v1/balance-transactions', 'get', 200>['data'][number];
export type BalanceTransactionListParams = QueryOf<'/api/v1/balance-transactions', 'get'>;

export type WebhookEndpoint = ResponseOf<'/api/v1/webhook-endpoints/{id}', 'get', 200>;
/** The create answer: the endpoint with its `whsec_…` secret (shown once). */
export type WebhookEndpointWithSecret = ResponseOf<'/api/v1/webhook-endpoints', 'post', 201>;
export type WebhookEndpointCreateParams = Schemas['CreateWebhookEndpointDto'];
export type WebhookEndpointUpdateParams = Schemas['UpdateWebhookEndpointDto'];
export type WebhookEndpointList = ResponseOf<'/api/v1/webhook-endpoints', 'get', 200>;
export type WebhookEndpointDeleted = ResponseOf<'/api/v1/webhook-endpoints/{id}', 'delete', 200>;
export type WebhookSecretRollParams = Schemas['RollWebhookSecretDto'];
export type WebhookSecretRolled = ResponseOf<'/api/v1/webhook-endpoints/{id}/roll-secret', 'post', 200>;
export type WebhookEndpointEnabled = ResponseOf<'/api/v1/webhook-endpoints/{id}/enable', 'post', 200>;
export type WebhookDelivery = ResponseOf<'/api/v1/webhook-endpoints/{id}/deliveries', 'get', 200>['data'][number];
export type WebhookDeliveryListParams = QueryOf<'/api/v1/webhook-endpoints/{id}/deliveries', 'get'>;
export type WebhookDeliveryResent = ResponseOf<'/api/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend', 'post', 200>;
export type WebhookReplayParams = Schemas['ReplayWebhookEventsDto'];
export type WebhookReplayed = ResponseOf<'/api/v1/webhook-endpoints/{id}/replay', 'post', 200>;
export type WebhookTestSent = ResponseOf<'/api/v1/webhook-endpoints/{id}/test', 'post', 200>;

/** The Error shape of every failed answer. */
export type ErrorBody = ResponseOf<'/api/v1/payment-intents', 'post', 400>;

/** One page of a list route. */
export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}
