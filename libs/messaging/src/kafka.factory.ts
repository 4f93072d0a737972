import { Kafka, logLevel, Partitioners, type KafkaConfig, type logCreator, type Producer } from 'kafkajs';
import { jsonLogger, type MessagingLogger } from './messaging.logger';

export interface CreateKafkaOptions {
  brokers: string[];
  clientId: string;
  logger?: MessagingLogger;
  ssl?: KafkaConfig['ssl'];
  sasl?: KafkaConfig['sasl'];
}

/** Routes kafkajs' own logs (WARN and up) to a MessagingLogger. */
export function createKafkaLogCreator(logger: MessagingLogger = jsonLogger('warn', 'kafkajs')): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, ...context } = log;
      const entry = { namespace, ...context };
      // Deliberate: the producer's retries are bounded so a relay can stop during an outage. A send that
      // fails after them is re-sent from the outbox, which at worst duplicates (the inbox absorbs that).
      if (message.startsWith('Limiting retries for the idempotent producer')) logger.debug(entry, message);
      else if (level === logLevel.ERROR) logger.error(entry, message);
      else if (level === logLevel.WARN) logger.warn(entry, message);
      else if (level === logLevel.INFO) logger.info(entry, message);
      else logger.debug(entry, message);
    };
}

/** The one Kafka client configuration every service uses. */
export function createKafka(options: CreateKafkaOptions): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ssl: options.ssl,
    sasl: options.sasl,
    connectionTimeout: 3000,
    requestTimeout: 30000,
    logLevel: logLevel.WARN,
    logCreator: createKafkaLogCreator(options.logger),
    // Bounded retries inside the client; the outbox relay and the consumer retry further on their own. The longest
    // wait between tries bounds how long a client sleeps after the broker is back (a broker restart takes ~10 s,
    // long enough for waits to grow past 5 s at a 10 s cap): 2 s, with tries enough to span ~30 s.
    retry: { initialRetryTime: 200, maxRetryTime: 2000, retries: 18 },
  });
}

/**
 * Idempotent producer: acks from all in-sync replicas (-1, enforced by kafkajs for idempotence) and one request
 * in flight per broker, so a retried batch can never overtake the one after it (per-key ordering holds).
 * The caller connects and disconnects it.
 */
export function createProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    // The Java client's murmur2 partitioner: a key lands on the same partition whichever client produced it.
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: true,
    retry: { initialRetryTime: 200, maxRetryTime: 2000, retries: 18 },
  });
}

/** Sends of the idempotent producer always ask for acks from all in-sync replicas. */
export const ACKS_ALL = -1;
