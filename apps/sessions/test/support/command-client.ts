// A small request/reply client over Kafka, built like the gateway's: sends sessions commands as RpcRequests and
// waits for the replies on its own reply topic.
import { commandTopic, connectCommandClient, replyTopic } from '@payments/platform';
import { TEST_KAFKA_BROKERS, uniqueName } from '@payments/testing';
import { SESSIONS_COMMANDS, SESSIONS_SERVICE, type SessionsCommandMap } from '@payments/contracts';

export interface SessionsCommandClient {
  request<K extends keyof SessionsCommandMap>(command: K, body: SessionsCommandMap[K]['body'], correlationId?: string): Promise<SessionsCommandMap[K]['reply']>;
  close(): Promise<void>;
}

export async function connectSessionsCommandClient(namespace: string, timeoutMs = 20_000): Promise<SessionsCommandClient> {
  const { client, service } = await connectCommandClient({
    brokers: TEST_KAFKA_BROKERS,
    clientId: uniqueName('sessions-test'),
    groupId: uniqueName(`${namespace}.test.replies`),
    replies: replyTopic(namespace, uniqueName('test')),
    commands: Object.values(SESSIONS_COMMANDS).map((name) => commandTopic(SESSIONS_SERVICE, name, namespace)),
    timeoutMs,
  });
  return {
    request: (command, body, correlationId = uniqueName('req')) =>
      service.request(commandTopic(SESSIONS_SERVICE, command, namespace), body, correlationId),
    close: () => client.close(),
  };
}
