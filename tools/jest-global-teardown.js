// Deletes the Kafka topics this jest run created (their names carry its run tag), so repeated runs on one
// broker do not pile up thousands of partitions.
const { Kafka, logLevel } = require('kafkajs');

module.exports = async () => {
  const tag = process.env.TEST_RUN_TAG;
  if (!tag) return;
  const kafka = new Kafka({ clientId: 'test-teardown', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.includes(`_${tag}`));
    for (let i = 0; i < topics.length; i += 200) await admin.deleteTopics({ topics: topics.slice(i, i + 200), timeout: 30000 });
    console.log(`teardown: deleted ${topics.length} test topics`);
  } catch (error) {
    // The tests' verdict is already in; a broker that cannot delete only leaves topics behind.
    console.warn(`teardown: could not delete test topics: ${error.message}`);
  } finally {
    await admin.disconnect();
  }
};
