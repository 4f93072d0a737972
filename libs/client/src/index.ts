// @payments/node: the payment service's typed client for merchants' Node servers.
export { Payments } from './client';
export { Payments as default } from './client';
export { type AttemptEvent, type AttemptResultEvent, type ClientHooks, type ClientOptions, type RequestOptions, type ResponseMeta, type WithResponse } from './http';
export { AutoPagingList } from './pagination';
export {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  errorFromAnswer,
  IdempotencyError,
  InvalidRequestError,
  NotFoundError,
  PaymentsError,
  PermissionError,
  RateLimitError,
  ServiceUnavailableError,
  WebhookSignatureError,
  type ErrorDetails,
} from './errors';
export { webhooks, type SignedTestPayload, type SignOptions, type VerifiedWebhook, type WebhookHeaders, type WebhookScheme, type WebhookVerifyOptions } from './webhooks';
export type * from './types';
export type { components, operations, paths } from './generated/openapi';
