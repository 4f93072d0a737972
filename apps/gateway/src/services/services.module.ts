import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { connectCommandClient, replyTopic, ServiceClient, type ConnectedCommandClient } from '@payments/platform';
import { GatewayConfig } from '../config';
import { gatewayCommandTopics } from './service-topics';

const COMMAND_CLIENT = Symbol('COMMAND_CLIENT');

/** Request/reply to the services over Kafka; connected (and a reply partition assigned) before traffic. */
@Global()
@Module({
  providers: [
    {
      provide: COMMAND_CLIENT,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig) =>
        connectCommandClient({
          brokers: config.KAFKA_BROKERS,
          clientId: `gateway-${config.INSTANCE_ID}-rpc`,
          groupId: `${config.KAFKA_NAMESPACE}.gateway.replies`,
          replies: replyTopic(config.KAFKA_NAMESPACE, 'gateway'),
          commands: gatewayCommandTopics(),
          timeoutMs: config.REQUEST_TIMEOUT_MS,
          commandPartitions: config.KAFKA_COMMAND_PARTITIONS,
          replyPartitions: config.KAFKA_REPLY_PARTITIONS,
        }),
    },
    {
      provide: ServiceClient,
      inject: [COMMAND_CLIENT],
      useFactory: (connected: ConnectedCommandClient) => connected.service,
    },
  ],
  exports: [ServiceClient],
})
export class ServicesModule implements OnApplicationShutdown {
  constructor(@Inject(COMMAND_CLIENT) private readonly connected: ConnectedCommandClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.connected.client.close();
  }
}
