// A small request/reply client over Kafka, built like the gateway's: sends sessions commands as RpcRequests and
// waits for the replies on `<topic>.reply`.
import { ClientKafka } from '@nestjs/microservices';
import { createKafka, ensureTopics } from '@payments/messaging';
import { commandTopic, ServiceClient } from '@payments/platform';
import { TEST_KAFKA_BROKERS, uniqueName, waitFor } from '@payments/testing';
import { Partitioners } from 'kafkajs';
import { SESSIONS_COMMANDS, SESSIONS_SERVICE, type SessionsCommandMap } from '@payments/contracts';

export interface SessionsCommandClient {
  request<K extends keyof SessionsCommandMap>(command: K, body: SessionsCommandMap[K]['body'], correlationId?: string): Promise<SessionsCommandMap[K]['reply']>;
  close(): Promise<void>;
}

export async function connectCommandClient(namespace: string, timeoutMs = 20_000): Promise<SessionsCommandClient> {
  const topics = Object.values(SESSIONS_COMMANDS).map((name) => commandTopic(SESSIONS_SERVICE, name, namespace));
  const replies = topics.map((topic) => `${topic}.reply`);
  const kafka = createKafka({ brokers: TEST_KAFKA_BROKERS, clientId: uniqueName('setup') });
  await ensureTopics(kafka, [...topics, ...replies]);
  const client = new ClientKafka({
    postfixId: '',
    client: { clientId: uniqueName('sessions-test'), brokers: TEST_KAFKA_BROKERS },
    consumer: { groupId: uniqueName(`${namespace}.test.replies`), allowAutoTopicCreation: false },
    producer: { allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner },
    subscribe: { fromBeginning: true },
  });
  ServiceClient.topicsToSubscribe(client, topics);
  await client.connect();
  await waitFor(() => replies.every((topic) => client.getConsumerAssignments()[topic] !== undefined), 30_000, 'reply partitions');
  const service = new ServiceClient(client, timeoutMs);
  return {
    request: (command, body, correlationId = uniqueName('req')) =>
      service.request(commandTopic(SESSIONS_SERVICE, command, namespace), body, correlationId),
    close: () => client.close(),
  };
}
