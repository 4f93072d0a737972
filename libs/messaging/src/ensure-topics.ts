import type { Admin, Kafka } from 'kafkajs';
import { backoffDelay, sleep } from './wakeup';

/**
 * Creates the topics that do not exist yet (partitions for new ones only) and waits until each has a leader;
 * safe to run on every boot, also when several services create topics at the same moment (a freshly created
 * topic can briefly answer "unknown topic" to metadata requests, which is retried here, not fatal).
 */
export async function ensureTopics(kafka: Kafka, topics: string[], partitions = 3, replicationFactor = -1, attempts = 8): Promise<void> {
  const wanted = [...new Set(topics)];
  if (wanted.length === 0) return;
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await createMissing(admin, wanted, partitions, replicationFactor);
        await admin.fetchTopicMetadata({ topics: wanted });
        return;
      } catch (error) {
        if (attempt >= attempts || (error as { retriable?: boolean }).retriable === false) throw error;
        await sleep(backoffDelay(attempt, 200, 3000));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

async function createMissing(admin: Admin, topics: string[], partitions: number, replicationFactor: number): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((topic) => !existing.has(topic));
  if (missing.length === 0) return;
  // Resolves false when another process created them first (TOPIC_ALREADY_EXISTS): that is fine.
  await admin.createTopics({
    waitForLeaders: true,
    topics: missing.map((topic) => ({ topic, numPartitions: partitions, replicationFactor })),
  });
}
