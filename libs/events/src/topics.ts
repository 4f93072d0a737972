/** The event streams services publish; one Kafka topic each per namespace. */
export const STREAMS = {
  sessions: 'sessions.events',
  ledger: 'ledger.events',
  refunds: 'refunds.events',
  /** Webhook endpoint settings and other gateway-owned state other services follow. */
  gateway: 'gateway.events',
  /** What the webhook-dispatcher decides on its own about endpoints (e.g. disabling one). */
  webhooks: 'webhooks.events',
} as const;

export type StreamName = (typeof STREAMS)[keyof typeof STREAMS];

/** Versioned topic name, e.g. `payments.sessions.events.v1`. A breaking change gets a new `.v2` topic. */
export function topicName(namespace: string, stream: string): string {
  return `${namespace}.${stream}.v1`;
}

/** Where a consumer parks messages it cannot handle: `<topic>.dlq`. */
export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`;
}
