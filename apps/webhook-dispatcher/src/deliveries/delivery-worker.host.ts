import { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { DeliveryWorker } from './delivery.worker';
import type { WebhookSender } from './webhook.sender';

/** Starts the delivery worker once the app is up; at shutdown lets the attempts in flight finish first. */
export class DeliveryWorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    readonly worker: DeliveryWorker,
    private readonly sender: WebhookSender,
  ) {}

  onApplicationBootstrap(): void {
    this.worker.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    await this.sender.close();
  }
}
