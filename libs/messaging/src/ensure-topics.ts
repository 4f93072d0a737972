import type { Kafka } from 'kafkajs';

/** Creates the topics that do not exist yet (partitions for new ones only); safe to run on every boot. */
export async function ensureTopics(kafka: Kafka, topics: string[], partitions = 3, replicationFactor = -1): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = [...new Set(topics)].filter((topic) => !existing.has(topic));
    if (missing.length === 0) return;
    // Resolves false when another process created them first (TOPIC_ALREADY_EXISTS): that is fine.
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({ topic, numPartitions: partitions, replicationFactor })),
    });
  } finally {
    await admin.disconnect();
  }
}
