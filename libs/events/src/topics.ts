/** The event streams services publish; one Kafka topic each per namespace. */
export const STREAMS = {
  sessions: 'sessions.events',
  ledger: 'ledger.events',
  refunds: 'refunds.events',
  /** Webhook endpoint settings and other gateway-owned state other services follow. */
  gateway: 'gateway.events',
  /** What the webhook-dispatcher decides on its own about endpoints (e.g. disabling one). */
  webhooks: 'webhooks.events',
  /** Copies of sessions' events that move money (PAID_EVENT_TYPES), for the consumers that act on nothing else. */
  sessionPayments: 'sessions.payments',
} as const;

export type StreamName = (typeof STREAMS)[keyof typeof STREAMS];

/** A payment intent or invoice paid: what the ledger books and what refunds may then refund. */
export const PAID_EVENT_TYPES: readonly string[] = ['payment_intent.succeeded', 'invoice.paid'];

/**
 * Streams made of copies: the outbox relay publishes each event of `types` on `from` on this stream's topic too, same
 * key, envelope and headers, in the same produce. A consumer that acts on a few types of a busy stream reads their
 * copies instead of fetching every event only to skip it: a payment intent's creation then wakes neither the ledger
 * nor refunds (docs/decisions.md, "Copies of the events that move money").
 */
export const COPIED_STREAMS: ReadonlyArray<{ stream: StreamName; from: StreamName; types: readonly string[] }> = [
  { stream: STREAMS.sessionPayments, from: STREAMS.sessions, types: PAID_EVENT_TYPES },
];

/** For the outbox relay: the topics an event on `topic` of type `eventType` is also published on (usually none). */
export function topicCopies(namespace: string): (topic: string, eventType: string | undefined) => readonly string[] {
  const copies = new Map<string, Map<string, string[]>>();
  for (const { stream, from, types } of COPIED_STREAMS) {
    const byType = copies.get(topicName(namespace, from)) ?? new Map<string, string[]>();
    for (const type of types) byType.set(type, [...(byType.get(type) ?? []), topicName(namespace, stream)]);
    copies.set(topicName(namespace, from), byType);
  }
  const none: readonly string[] = [];
  return (topic, eventType) => (eventType === undefined ? none : (copies.get(topic)?.get(eventType) ?? none));
}

/** Versioned topic name, e.g. `payments.sessions.events.v1`. A breaking change gets a new `.v2` topic. */
export function topicName(namespace: string, stream: string): string {
  return `${namespace}.${stream}.v1`;
}

/** Where a consumer parks messages it cannot handle: `<topic>.dlq`. */
export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`;
}
