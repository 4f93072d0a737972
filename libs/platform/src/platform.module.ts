import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ServiceConfig } from '@payments/config';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as PinoInstance } from 'pino';
import { DatabaseModule, DatabaseOptions } from './database/database.module';
import { HealthController } from './health/health.controller';
import { Readiness } from './health/readiness';
import { KafkaHealthIndicator } from './health/kafka.health';
import { KafkaModule } from './kafka/kafka.module';
import { OutboxRelayHost } from './kafka/outbox-relay.host';
import { SERVICE_NAME } from './platform.tokens';
import { createPingController } from './rpc/ping.controller';

export interface PlatformOptions<C extends ServiceConfig> {
  service: string;
  config: C;
  configClass: Type<C>;
  database: DatabaseOptions;
  /** The process's root logger (bootstrap writes the request log with it). */
  logger: PinoInstance;
  /** Answer the `ping` command (services that serve commands). */
  servesCommands?: boolean;
}

/**
 * What every service has: validated config, JSON logs, its Postgres schema (migrated at boot), Kafka,
 * /health/live, /health/ready and /metrics. Global, so feature modules inject these directly.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot<C extends ServiceConfig>(options: PlatformOptions<C>): DynamicModule {
    const configProviders = [
      { provide: ServiceConfig, useValue: options.config },
      ...(options.configClass === ServiceConfig ? [] : [{ provide: options.configClass, useValue: options.config }]),
      { provide: SERVICE_NAME, useValue: options.service },
    ];
    return {
      module: PlatformModule,
      global: true,
      imports: [
        // No pino-http middleware (forRoutes: []): its per-request child logger and async context cost ~13 % of
        // the gateway's CPU per request. Bootstrap writes the same request log line in an onResponse hook.
        LoggerModule.forRoot({ pinoHttp: { logger: options.logger }, forRoutes: [] }),
        TerminusModule,
        DatabaseModule.forRoot(options.database),
        KafkaModule,
      ],
      controllers: [
        HealthController,
        ...(options.servesCommands ? [createPingController(options.service)] : []),
      ],
      providers: [
        ...configProviders,
        KafkaHealthIndicator,
        Readiness,
        OutboxRelayHost,
      ],
      exports: [...configProviders.map((p) => p.provide), KafkaModule, DatabaseModule, OutboxRelayHost, Readiness],
    };
  }
}
