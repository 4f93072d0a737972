import { ENVELOPE_SCHEMA } from './envelope.schema';
import { eventTypes } from './event-catalogue';
import type { JsonSchema } from './event-type';
import type { EventTypeRegistry } from './event-type.registry';
import { COPIED_STREAMS, STREAMS, topicName } from './topics';

export interface AsyncApiDocument {
  asyncapi: '3.0.0';
  info: { title: string; version: string; description: string };
  defaultContentType: string;
  channels: Record<string, AsyncApiChannel>;
  operations: Record<string, AsyncApiOperation>;
  components: { schemas: Record<string, JsonSchema>; messages: Record<string, AsyncApiMessage> };
}

export interface AsyncApiChannel {
  address: string;
  title: string;
  description: string;
  messages: Record<string, { $ref: string }>;
}

export interface AsyncApiOperation {
  action: 'send' | 'receive';
  title: string;
  channel: { $ref: string };
  messages: Array<{ $ref: string }>;
}

export interface AsyncApiMessage {
  name: string;
  title: string;
  summary?: string;
  contentType: string;
  tags: Array<{ name: string }>;
  headers: JsonSchema;
  payload: JsonSchema;
  bindings: { kafka: { key: JsonSchema; bindingVersion: string } };
}

const HEADERS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    'event-id': { type: 'string', description: 'Envelope id.' },
    'event-type': { type: 'string', description: 'Envelope type.' },
    'schema-version': { type: 'string', description: 'Envelope schema_version.' },
    'correlation-id': { type: 'string' },
    'causation-id': { type: 'string' },
    'wallet-payment': { type: 'string', enum: ['true'], description: "Set when data.payment names the customer wallet it was paid from (whether, never which)." },
    traceparent: {
      type: 'string',
      pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
      description:
        'W3C Trace Context (https://www.w3.org/TR/trace-context/) of the publishing span, present while the publisher traces. ' +
        "Extract it (any OpenTelemetry W3C propagator) and make your consumer's span its child or link it, to join the trace " +
        "of the request that caused the event (a payment's create, its simulation, the ledger's posting and the webhook are one trace). " +
        'Its sampled flag says whether the publisher recorded the trace.',
    },
    tracestate: { type: 'string', description: 'W3C Trace Context tracestate accompanying traceparent, when the publisher has one.' },
  },
};

/** JSON pointer segment escaping (RFC 6901) for ids used in `$ref`s. */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * AsyncAPI 3.0 description of every stream of `namespace`, generated from the same registry that validates
 * events on produce and consume, so the published contract cannot drift from what is enforced.
 */
export function buildAsyncApiDocument(namespace: string, registry: EventTypeRegistry = eventTypes): AsyncApiDocument {
  const { $id: _id, ...envelopeSchema } = ENVELOPE_SCHEMA;
  const doc: AsyncApiDocument = {
    asyncapi: '3.0.0',
    info: {
      title: `${namespace} domain events`,
      version: '1.0.0',
      description:
        'Events published by the payment services through their transactional outboxes. Every message is a JSON ' +
        'EventEnvelope keyed by aggregate_id, so the events of one aggregate stay in order on one partition. ' +
        'Consumers must de-duplicate by envelope id (delivery is at least once).',
    },
    defaultContentType: 'application/json',
    channels: {},
    operations: {},
    components: { schemas: { EventEnvelope: envelopeSchema as unknown as JsonSchema }, messages: {} },
  };

  const types = registry.latest();
  for (const stream of Object.values(STREAMS)) {
    const channelId = stream;
    const copy = COPIED_STREAMS.find((copied) => copied.stream === stream);
    const channel: AsyncApiChannel = {
      address: topicName(namespace, stream),
      title: stream,
      description: copy
        ? `Copies of the ${copy.from.split('.')[0]} service's ${copy.types.join(' and ')} events, published with them (same key, ` +
          `envelope and headers; the same event id on both topics): for consumers that act on these types only.`
        : `Events of the ${stream.split('.')[0]} service.`,
      messages: {},
    };
    const operationMessages: Array<{ $ref: string }> = [];
    const carried = copy ? types.filter((t) => t.stream === copy.from && copy.types.includes(t.type)) : types.filter((t) => t.stream === stream);
    for (const definition of carried) {
      const messageId = definition.type;
      doc.components.messages[messageId] = {
        name: definition.type,
        title: definition.type,
        ...(definition.description ? { summary: definition.description } : {}),
        contentType: 'application/json',
        tags: [{ name: definition.public ? 'public' : 'internal' }],
        headers: HEADERS_SCHEMA,
        payload: {
          allOf: [
            { $ref: '#/components/schemas/EventEnvelope' },
            {
              type: 'object',
              properties: {
                type: { const: definition.type },
                schema_version: { const: definition.version },
                data: definition.dataSchema,
              },
            },
          ],
        },
        bindings: { kafka: { key: { type: 'string', description: 'aggregate_id' }, bindingVersion: '0.5.0' } },
      };
      channel.messages[messageId] = { $ref: `#/components/messages/${pointer(messageId)}` };
      operationMessages.push({ $ref: `#/channels/${pointer(channelId)}/messages/${pointer(messageId)}` });
    }
    doc.channels[channelId] = channel;
    doc.operations[`publish.${stream}`] = {
      action: 'send',
      title: `Publish ${stream}`,
      channel: { $ref: `#/channels/${pointer(channelId)}` },
      messages: operationMessages,
    };
  }
  return doc;
}
