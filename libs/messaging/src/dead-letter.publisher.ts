import { deadLetterTopic } from '@payments/events';
import type { Producer } from 'kafkajs';
import type { DecodedMessage } from './consumer-message.decoder';
import { ACKS_ALL } from './kafka.factory';

/**
 * Parks a message on its topic's dead-letter topic (`<topic>.dlq`) with why, where it came from and how often it
 * was tried, in `dlq-*` headers. Throws when the broker does not take it: the caller must not skip the message.
 */
export class DeadLetterPublisher {
  constructor(
    private readonly producer: Producer,
    /** Names the consumer in `dlq-consumer`. */
    private readonly consumerName: string,
  ) {}

  async publish({ message, where }: DecodedMessage, reason: string, attempts: number): Promise<void> {
    await this.producer.send({
      topic: deadLetterTopic(where.topic),
      acks: ACKS_ALL,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            'dlq-reason': reason,
            'dlq-original-topic': where.topic,
            'dlq-original-partition': String(where.partition),
            'dlq-original-offset': message.offset,
            'dlq-attempts': String(attempts),
            'dlq-failed-at': new Date().toISOString(),
            'dlq-consumer': this.consumerName,
          },
        },
      ],
    });
  }
}
