import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { deadLetterTopic, STREAMS, topicName } from '@payments/events';
import { ensureTopics } from '@payments/messaging';
import { KAFKA, type ConsumerDefinition } from '@payments/platform';
import type { Kafka } from 'kafkajs';
import { WebhookDispatcherConfig } from '../config';

/** Public events merchants receive: payment intents and invoices (sessions), refunds. */
export const PUBLIC_EVENTS: ConsumerDefinition = {
  name: 'webhooks.public-events',
  topics: (namespace) => [topicName(namespace, STREAMS.sessions), topicName(namespace, STREAMS.refunds)],
};

/** The gateway's webhook endpoint settings. */
export const ENDPOINT_EVENTS: ConsumerDefinition = {
  name: 'webhooks.endpoints',
  topics: (namespace) => [topicName(namespace, STREAMS.gateway)],
};

/** The consumers subscribe without creating topics: a stream nobody has published to yet is created first. */
@Injectable()
export class EventTopics implements OnModuleInit {
  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const topics = [...PUBLIC_EVENTS.topics(this.config.KAFKA_NAMESPACE), ...ENDPOINT_EVENTS.topics(this.config.KAFKA_NAMESPACE)];
    await ensureTopics(this.kafka, [...topics, ...topics.map(deadLetterTopic)]);
  }
}
