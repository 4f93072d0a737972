import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ServiceConfig } from '@payments/config';
import { createKafka, createProducer } from '@payments/messaging';
import type { Kafka, Producer } from 'kafkajs';
import { SERVICE_NAME } from '../platform.tokens';
import { KAFKA, KAFKA_PRODUCER } from './kafka.tokens';

/** One Kafka client and one idempotent producer a process, shared by the outbox relay and dead-lettering. */
@Global()
@Module({
  providers: [
    {
      provide: KAFKA,
      inject: [ServiceConfig, SERVICE_NAME],
      useFactory: (config: ServiceConfig, service: string) =>
        createKafka({ brokers: config.KAFKA_BROKERS, clientId: `${service}-${config.INSTANCE_ID}` }),
    },
    {
      provide: KAFKA_PRODUCER,
      inject: [KAFKA],
      useFactory: async (kafka: Kafka) => {
        const producer = createProducer(kafka);
        await producer.connect();
        return producer;
      },
    },
  ],
  exports: [KAFKA, KAFKA_PRODUCER],
})
export class KafkaModule implements OnApplicationShutdown {
  constructor(@Inject(KAFKA_PRODUCER) private readonly producer: Producer) {}

  /** Runs after the outbox relay flushed (beforeApplicationShutdown), so nothing is cut off mid-send. */
  async onApplicationShutdown(): Promise<void> {
    await this.producer.disconnect();
  }
}
