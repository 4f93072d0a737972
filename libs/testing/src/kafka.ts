import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { uniqueName } from './postgres';

export const TEST_KAFKA_BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

/**
 * A Kafka client on the machine's broker with a unique client id. Plain kafkajs on purpose: the messaging lib's
 * own tests use this package, so it must not depend on that lib.
 */
export function testKafka(): Kafka {
  return new Kafka({
    brokers: TEST_KAFKA_BROKERS,
    clientId: uniqueName('test'),
    logLevel: logLevel.ERROR,
    retry: { initialRetryTime: 200, retries: 8 },
  });
}

/** A topic name no other test run uses: `test.<prefix>.<random>`. */
export function uniqueTopic(prefix: string): string {
  return `test.${uniqueName(prefix)}`;
}

export interface CollectedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

/** Polls `predicate` until it holds; rejects after `timeoutMs` naming what was waited for. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  description = 'condition',
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Reads `topic` from the beginning with a throwaway consumer group until `n` messages arrived (all partitions,
 * each partition in offset order); rejects on timeout with the count seen.
 */
export async function collectMessages(
  topic: string,
  n: number,
  timeoutMs = 20_000,
  kafka = testKafka(),
  /** Only the messages this accepts are collected (and counted). */
  accept: (message: CollectedMessage) => boolean = () => true,
): Promise<CollectedMessage[]> {
  const collected: CollectedMessage[] = [];
  const consumer = kafka.consumer({ groupId: uniqueName('collect'), allowAutoTopicCreation: true, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await subscribeWhenReady(consumer, topic);
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic: from, partition, message }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String).join(',') : value.toString();
        }
        const item = {
          topic: from,
          partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? null,
          value: message.value?.toString('utf8') ?? null,
          headers,
        };
        if (accept(item)) collected.push(item);
      },
    });
    await waitFor(() => collected.length >= n, timeoutMs, `${n} messages on ${topic} (got ${collected.length})`).catch(
      (error: unknown) => {
        throw new Error(`${(error as Error).message}; got ${collected.length}`);
      },
    );
    return collected;
  } finally {
    await consumer.disconnect();
  }
}

/**
 * Every message on `topic` when called: each partition read from its start to its end at that moment (an outbox
 * relay deletes what it sent, so a running service's published events are read here, not from its outbox).
 */
export async function topicMessages(topic: string, kafka = testKafka(), timeoutMs = 20_000): Promise<CollectedMessage[]> {
  const admin = kafka.admin();
  await admin.connect();
  let total = 0;
  try {
    for (const partition of await admin.fetchTopicOffsets(topic)) total += Number(partition.high) - Number(partition.low);
  } finally {
    await admin.disconnect();
  }
  return total === 0 ? [] : collectMessages(topic, total, timeoutMs, kafka);
}

/**
 * Subscribes, waiting out a topic that is still being created (a fresh broker answers "does not host this
 * topic-partition" for a moment after auto-creating it).
 */
async function subscribeWhenReady(consumer: Consumer, topic: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      return;
    } catch (error) {
      if ((error as { retriable?: boolean }).retriable !== true || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Messages of `topic` the group has not committed yet (0 once it caught up with every partition). */
export async function groupLag(kafka: Kafka, groupId: string, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ]);
    let lag = 0;
    for (const end of ends) {
      const done = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
      const start = Number(done) < 0 ? Number(end.low) : Number(done);
      lag += Math.max(0, Number(end.high) - start);
    }
    return lag;
  } finally {
    await admin.disconnect();
  }
}

/**
 * Deletes every topic of a test namespace (`<namespace>.…`), so repeated runs do not pile up thousands of
 * partitions on the development broker.
 */
export async function deleteNamespaceTopics(namespace: string, kafka = testKafka()): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
  } finally {
    await admin.disconnect();
  }
}
