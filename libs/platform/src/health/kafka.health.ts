import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { Kafka, Admin } from 'kafkajs';
import { KAFKA } from '../kafka/kafka.tokens';

/** Kafka is ready when the cluster answers a metadata request within the timeout. */
@Injectable()
export class KafkaHealthIndicator {
  private admin?: Admin;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(key: string, timeoutMs = 1500) {
    const indicator = this.indicators.check(key);
    try {
      this.admin ??= this.kafka.admin();
      await withTimeout(this.admin.connect().then(() => this.admin!.describeCluster()), timeoutMs);
      return indicator.up();
    } catch (error) {
      this.admin = undefined;
      return indicator.down({ message: (error as Error).message });
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.admin?.disconnect();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
