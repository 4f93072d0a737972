// The event contract: the envelope every event travels in, each stream's event types with their data schemas,
// topic names, validation, and the AsyncAPI document built from them (docs/asyncapi.yaml).

// The envelope.
export { type Environment, type EventEnvelope } from './event-envelope';
export { EVENT_ID_PATTERN, newEventId } from './event-id';
export { ENVELOPE_SCHEMA } from './envelope.schema';
export { newEnvelope, type NewEnvelopeInput } from './new-envelope';
export { EventValidationError, validateEnvelope } from './validate-envelope';

// Topics.
export { COPIED_STREAMS, deadLetterTopic, PAID_EVENT_TYPES, STREAMS, topicCopies, topicName, type StreamName } from './topics';

// Event types: the registry of every type, and each stream's list.
export { type EventTypeDefinition, type JsonSchema, type RegisteredEventType } from './event-type';
export { EventTypeRegistry } from './event-type.registry';
export { eventTypes, registerEventType } from './event-catalogue';
export { PUBLIC_EVENT_TYPES, type PublicEventType } from './public-event-types';
export { GATEWAY_EVENT_TYPES, WEBHOOK_ENDPOINT_SNAPSHOT_SCHEMA, type GatewayEventType } from './gateway-event-types';
export { ENDPOINT_AUTO_DISABLED_SCHEMA, WEBHOOK_EVENT_TYPES, type EndpointAutoDisabled, type EndpointDisabledReason, type WebhookEventType } from './webhook-event-types';
export { LEDGER_EVENT_TYPES, POSTING_SCHEMA, type LedgerEventType } from './ledger-event-types';

// The AsyncAPI document for consuming teams.
export { buildAsyncApiDocument, type AsyncApiChannel, type AsyncApiDocument, type AsyncApiMessage, type AsyncApiOperation } from './asyncapi.document';
