import { deadLetterTopic } from '@payments/events';
import type { IHeaders, Producer } from 'kafkajs';
import { ACKS_ALL } from './kafka.factory';

/** The message to park and where it was read. */
export interface DeadLetter {
  message: { key: Buffer | string | null; value: Buffer | string | null; headers?: IHeaders; offset: string };
  where: { topic: string; partition: number };
}

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

  async publish(letter: DeadLetter, reason: string, attempts: number): Promise<void> {
    await this.publishAll(letter.where.topic, [letter], reason, attempts);
  }

  /** Several messages of one topic, in one request. */
  async publishAll(topic: string, letters: readonly DeadLetter[], reason: string, attempts: number): Promise<void> {
    await this.producer.send({
      topic: deadLetterTopic(topic),
      acks: ACKS_ALL,
      messages: letters.map(({ message, where }) => ({
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
      })),
    });
  }
}
