import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { commandConsumerState } from '../rpc/concurrent-kafka.server';
import type { FastifyReply } from 'fastify';
import { KafkaHealthIndicator } from './kafka.health';

@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly kafka: KafkaHealthIndicator,
    private readonly indicators: HealthIndicatorService,
  ) {}

  /** The process is alive and its event loop turns. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready only while Postgres and Kafka answer; a 503 takes the instance out of the load balancer. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    try {
      return await this.health.check([
        () => this.db.pingCheck('postgres', { timeout: 1500 }),
        () => this.kafka.check('kafka'),
        ...(commandConsumerState.serving ? [() => this.commandConsumer()] : []),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      void reply.status(503);
      return error.getResponse();
    }
  }

  private commandConsumer() {
    const indicator = this.indicators.check('commands');
    return commandConsumerState.joined ? indicator.up() : indicator.down({ message: 'command consumer has not joined its group' });
  }
}
