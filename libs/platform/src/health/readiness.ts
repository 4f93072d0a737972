import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { commandServersServing } from '../rpc/command.server';
import { KafkaHealthIndicator } from './kafka.health';

export interface ReadinessResult {
  ready: boolean;
  /** terminus' report, naming what is down and why: for the operations port only. */
  details: unknown;
}

/** Ready only while Postgres and Kafka answer and, in a service that owns commands, its command port takes them. */
@Injectable()
export class Readiness {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly kafka: KafkaHealthIndicator,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(): Promise<ReadinessResult> {
    try {
      const details = await this.health.check([
        () => this.db.pingCheck('postgres', { timeout: 1500 }),
        () => this.kafka.check('kafka'),
        ...(commandServersServing() === null ? [] : [() => this.commandServer()]),
      ]);
      return { ready: true, details };
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      return { ready: false, details: error.getResponse() };
    }
  }

  private commandServer() {
    const indicator = this.indicators.check('commands');
    return commandServersServing() ? indicator.up() : indicator.down({ message: 'the command port is not taking commands' });
  }
}
