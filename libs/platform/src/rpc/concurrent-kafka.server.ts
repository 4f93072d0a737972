import { ServerKafka } from '@nestjs/microservices';
import type { Consumer, EachBatchPayload, Producer } from 'kafkajs';
import { withBatchedSends } from './batching-producer';
import { COMMAND_HEADER, serviceCommandTopic } from './command-topic';

/**
 * Whether this process's command consumer is in its group (readiness: an instance that cannot receive
 * commands must not look ready). One command server per process.
 */
export const commandConsumerState = { serving: false, joined: false };

/** Commands handled at once by one instance; beyond it the consumer stops fetching until some finish. */
const MAX_IN_FLIGHT = 256;

/**
 * The Nest Kafka command server, changed for throughput and latency on a small machine:
 * - commands are dispatched as they arrive and handled concurrently; the consumer goes on fetching while
 *   handlers wait on the database (the stock server handles one message at a time per partition);
 * - a command's offset is resolved when it is dispatched, not when it is done. Request/reply is at-most-once,
 *   like HTTP: if an instance dies mid-command the caller times out (503) and retries with the same
 *   idempotency key, which the handler makes safe; commands also carry deadlines;
 * - replies leave in one produce request per event-loop turn;
 * - it reads each service's one command topic and routes by the command header (see command-topic.ts).
 */
export class ConcurrentKafkaServer extends ServerKafka {
  private readonly inFlight = new Set<Promise<unknown>>();

  override async bindEvents(consumer: Consumer): Promise<void> {
    // The producer exists by now (start() creates it before binding).
    const self = this as unknown as { producer: Producer };
    self.producer = withBatchedSends(self.producer);
    commandConsumerState.serving = true;
    consumer.on(consumer.events.GROUP_JOIN, () => (commandConsumerState.joined = true));
    consumer.on(consumer.events.CRASH, () => (commandConsumerState.joined = false));
    consumer.on(consumer.events.STOP, () => (commandConsumerState.joined = false));
    const topics = [...new Set([...this.messageHandlers.keys()].map(serviceCommandTopic))];
    if (topics.length > 0) await consumer.subscribe({ ...(this.options.subscribe ?? {}), topics });
    await consumer.run({
      ...(this.options.run ?? {}),
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.dispatchBatch(payload),
    });
  }

  private async dispatchBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) return;
      while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight);
      const command = message.headers?.[COMMAND_HEADER]?.toString() ?? batch.topic;
      const handled = this.handleMessage({ topic: command, partition: batch.partition, message, heartbeat, pause: () => () => undefined })
        .catch((error: unknown) => this.logger.error(`command ${command} failed: ${(error as Error)?.stack ?? String(error)}`))
        .finally(() => this.inFlight.delete(handled));
      this.inFlight.add(handled);
      resolveOffset(message.offset);
    }
    await heartbeat();
  }

  /** At shutdown, commands already dispatched finish (and reply) before the producer closes. */
  override async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await super.close();
  }
}
