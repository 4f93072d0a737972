import { STREAMS, topicName } from '@payments/events';
import type { ConsumerDefinition } from '@payments/platform';

/** Public events merchants receive: payment intents and invoices (sessions), refunds. */
export const PUBLIC_EVENTS: ConsumerDefinition = {
  name: 'webhooks.public-events',
  topics: (namespace) => [topicName(namespace, STREAMS.sessions), topicName(namespace, STREAMS.refunds)],
  readyOnceJoined: true,
  // Merchants wait on webhooks: a short linger, so at a few hundred events a second several share a transaction.
  lingerMs: 20,
};

/** The gateway's webhook endpoint settings. */
export const ENDPOINT_EVENTS: ConsumerDefinition = {
  name: 'webhooks.endpoints',
  topics: (namespace) => [topicName(namespace, STREAMS.gateway)],
  readyOnceJoined: true,
};
