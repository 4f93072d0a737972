// Identifiers: prefixed resource ids, time-ordered payment ids, API keys and the environment an id belongs to.
export { ENVIRONMENTS, isEnvironment, type Environment } from './environment';
export { BASE62_ALPHABET, randomBase62 } from './random-base62';
export {
  environmentOfInvoiceId,
  environmentOfPaymentIntentId,
  newEventId,
  newInvoiceId,
  newPaymentIntentId,
  newRefundId,
  newWalletId,
  isWalletId,
  newRequestId,
} from './prefixed-ids';
export {
  createPaymentIdGenerator,
  isPaymentId,
  newPaymentId,
  PAYMENT_ID_EPOCH_MS,
  paymentIdTime,
  type PaymentIdGenerator,
  type PaymentIdGeneratorOptions,
} from './payment-id';
export {
  API_KEY_ID_LENGTH,
  API_KEY_SECRET_LENGTH,
  generateApiKey,
  hashSecret,
  parseApiKey,
  secretMatches,
  type GeneratedApiKey,
  type ParsedApiKey,
} from './api-key';
