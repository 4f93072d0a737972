import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { commandServersServing } from '../rpc/http-command.server';
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
        ...(commandServersServing() === null ? [] : [() => this.commandServer()]),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      void reply.status(503);
      return error.getResponse();
    }
  }

  private commandServer() {
    const indicator = this.indicators.check('commands');
    return commandServersServing() ? indicator.up() : indicator.down({ message: 'the command port is not taking commands' });
  }
}
