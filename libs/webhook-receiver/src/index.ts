// What a merchant's server uses to receive our webhooks: signature verification and duplicate suppression.
export {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  type VerifiedWebhook,
  type VerifyFailure,
  type VerifyOptions,
  type VerifyResult,
  type WebhookHeaders,
  type WebhookScheme,
} from './verify-webhook';
export {
  MemoryEventIdStore,
  type ClaimResult,
  type EventIdStore,
  type MemoryEventIdStoreOptions,
} from './event-id-store';
export { createWebhookHandler, createWebhookServer, readRawBody, type WebhookHandlerOptions } from './webhook-handler';
