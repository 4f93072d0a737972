export * from './sessions.contract';
export * from './webhooks.contract';
export * from './resource.schemas';
export * from './resource-views';
export {
  CUSTOMER_SCHEMA,
  expiresInSchema,
  HTTPS_URL_SCHEMA,
  IDEMPOTENCY_KEY_SCHEMA,
  INTENT_METHODS,
  INVOICE_METHODS,
  INVOICE_PARAMS_SCHEMA,
  METADATA_SCHEMA,
  MONEY_INPUT_SCHEMA,
  PAYMENT_INTENT_PARAMS_SCHEMA,
  SESSION_PARAMS_PROPERTIES,
  SESSIONS_COMMAND_SCHEMAS,
  SIMULATE_INVOICE_PARAMS_SCHEMA,
  SIMULATE_PAYMENT_INTENT_PARAMS_SCHEMA,
} from './command.schemas';
export { validateCommand, type CommandCheck } from './validate-command';
export { canonicalJson, requestFingerprint } from './request-fingerprint';
