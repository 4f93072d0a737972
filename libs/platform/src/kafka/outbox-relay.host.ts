import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ServiceConfig } from '@payments/config';
import { topicCopies } from '@payments/events';
import { OutboxRelay, outboxOldestUnsentAgeSeconds } from '@payments/messaging';
import type { Producer } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { outboxRowsParked, watchOutboxAge } from '../metrics/metrics';
import { KAFKA_PRODUCER } from './kafka.tokens';

/**
 * Runs the service's outbox relay: starts once the app is up, and at shutdown publishes what is left before
 * the producer disconnects (the relay stands by while another instance holds the schema's lock).
 */
@Injectable()
export class OutboxRelayHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly relay: OutboxRelay;
  private readonly unwatch: () => void;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(KAFKA_PRODUCER) producer: Producer,
    config: ServiceConfig,
    logger: PinoLogger,
  ) {
    logger.setContext('OutboxRelay');
    this.relay = new OutboxRelay({
      dataSource,
      producer,
      schema: config.DB_SCHEMA,
      maxBatchBytes: config.OUTBOX_MAX_BATCH_BYTES,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      spacingMs: config.OUTBOX_SPACING_MS,
      copies: topicCopies(config.KAFKA_NAMESPACE),
      logger,
      hooks: { onParked: () => outboxRowsParked.inc({ schema: config.DB_SCHEMA }) },
    });
    outboxRowsParked.inc({ schema: config.DB_SCHEMA }, 0); // from 0, so the first one shows as an increase
    this.unwatch = watchOutboxAge(config.DB_SCHEMA, () => outboxOldestUnsentAgeSeconds(dataSource, config.DB_SCHEMA));
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unwatch();
    if (this.relay.stats().active) await this.relay.flush(10_000);
    await this.relay.stop();
  }
}
