import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ClientKafka } from '@nestjs/microservices';
import { createKafka, ensureTopics } from '@payments/messaging';
import { ServiceClient, withBatchedSends } from '@payments/platform';
import { Partitioners, Producer } from 'kafkajs';
import { GatewayConfig } from '../config';
import { gatewayCommandTopics } from './service-topics';

const CLIENT_KAFKA = Symbol('CLIENT_KAFKA');

/** Request/reply to the services over Kafka; connected (and reply partitions assigned) before traffic. */
@Global()
@Module({
  providers: [
    {
      provide: CLIENT_KAFKA,
      inject: [GatewayConfig],
      useFactory: async (config: GatewayConfig) => {
        const topics = gatewayCommandTopics();
        const replies = topics.map((t) => `${t}.reply`);
        const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: `gateway-${config.INSTANCE_ID}-setup` });
        await ensureTopics(kafka, topics, config.KAFKA_COMMAND_PARTITIONS);
        await ensureTopics(kafka, replies, config.KAFKA_REPLY_PARTITIONS);
        const client = new ClientKafka({
          postfixId: '',
          client: { clientId: `gateway-${config.INSTANCE_ID}-rpc`, brokers: config.KAFKA_BROKERS },
          consumer: { groupId: `${config.KAFKA_NAMESPACE}.gateway.replies`, allowAutoTopicCreation: false },
          producer: { allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner },
          // A new reply group must not start at "latest": a reply written before its offsets are first resolved
          // would be skipped and its request time out. Old replies it reads find no waiting request.
          subscribe: { fromBeginning: true },
          // Replies are matched to waiting requests in memory; their offsets matter little, so commit rarely.
          run: { autoCommitInterval: 5000 },
        });
        ServiceClient.topicsToSubscribe(client, topics);
        await client.connect();
        // Requests from concurrent HTTP calls leave in one produce request per event-loop turn.
        const internals = client as unknown as { _producer: Producer };
        internals._producer = withBatchedSends(internals._producer);
        await waitForAssignments(client, replies);
        return client;
      },
    },
    {
      provide: ServiceClient,
      inject: [CLIENT_KAFKA, GatewayConfig],
      useFactory: (client: ClientKafka, config: GatewayConfig) => new ServiceClient(client, config.REQUEST_TIMEOUT_MS),
    },
  ],
  exports: [ServiceClient],
})
export class ServicesModule implements OnApplicationShutdown {
  constructor(@Inject(CLIENT_KAFKA) private readonly client: ClientKafka) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/** The transport needs a reply partition of each reply topic before it can send; joining the group takes a moment. */
async function waitForAssignments(client: ClientKafka, replyTopics: string[], timeoutMs = 30000): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const assigned = client.getConsumerAssignments();
    if (replyTopics.every((t) => assigned[t] !== undefined)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  new Logger('ServicesModule').warn({ replyTopics }, 'reply partitions not yet assigned; requests fail with 503 until they are');
}
