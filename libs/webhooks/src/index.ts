// Webhooks as merchants receive them: signing and body rendering, the retry schedule, which targets may be
// called (SSRF checks and name resolution), the secrets box, and the webhook services' settings.
export { classifyAddress, isIpLiteral, parseIPv4, parseIPv6, type AddressKind } from './ip-address';
export {
  addressAllowed,
  checkWebhookTarget,
  checkWebhookUrlSyntax,
  MAX_WEBHOOK_URL_LENGTH,
  resolveWebhookTarget,
  type HostLookup,
  type LookupContext,
  type ResolvedAddress,
  type TargetCheck,
  type TargetPolicy,
  type TargetRefusal,
  type WebhookTarget,
} from './webhook-target';
export { HostResolver, parseNameServers, type HostResolverOptions } from './host-resolver';
export { intentSignatureHeader, invoiceSignatureHeader, signPayload } from './signature';
export { schemeOf, TEST_EVENT_TYPE, type WebhookScheme } from './webhook-scheme';
export {
  renderTestWebhook,
  renderWebhook,
  type IntentWebhookBody,
  type InvoiceWebhookBody,
  type PublicEvent,
  type RenderedWebhook,
  type TestEventInput,
} from './webhook-body';
export { signedWebhookHeaders, type SignedHeadersInput } from './webhook-headers';
export {
  DEFAULT_RETRY_SCHEDULE_MS,
  DISABLE_AFTER_FAILING_MS,
  failingTooLong,
  MAX_RETRY_AFTER_MS,
  maxAttempts,
  nextStep,
  parseRetryAfter,
  RETRY_JITTER,
  retryDelayMs,
  type AttemptOutcome,
  type NextStep,
  type NextStepOptions,
} from './retry-policy';
export {
  decryptSecret,
  DEVELOPMENT_WEBHOOK_SECRETS_KEY,
  encryptSecret,
  newWebhookSecret,
  parseSecretsKey,
  PUBLISHED_WEBHOOK_SECRETS_KEYS,
  WEBHOOK_SECRET_PREFIX,
} from './secret-box';
export { webhookDnsOptions, WebhookServiceConfig } from './webhook-service.config';
