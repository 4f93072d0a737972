import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';

/**
 * A background pass that runs every `intervalMs` after the previous one ended (never two at once), from the
 * application's start until its shutdown, which waits for a pass in progress to finish: its writes are committed
 * before the outbox relay's last flush. A pass that throws is logged and the next one runs on time.
 */
export abstract class IntervalJob<R = unknown> implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  protected stopped = false;

  protected constructor(
    name: string,
    private readonly intervalMs: number,
  ) {
    this.logger = new Logger(name);
  }

  /** One pass: everything due now. */
  abstract runOnce(): Promise<R>;

  /** What a pass's result is worth saying (nothing by default). */
  protected report(_result: R): void {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then(
          (result) => this.report(result),
          (error: unknown) => this.logger.error({ err: error }, 'background pass failed; retrying at the next interval'),
        )
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.intervalMs);
  }
}
