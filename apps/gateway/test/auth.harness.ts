// A small in-process API for the gateway's auth, rate-limit, idempotency and admin tests: the real guard,
// interceptor, pipe, Postgres schema and Redis, with test controllers instead of the payment routes.
import { Global, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, ServiceConfig } from '@payments/config';
import { ApiExceptionFilter, DatabaseModule, MAX_BODY_BYTES, requestIdFor } from '@payments/platform';
import { TestDatabase, uniqueName } from '@payments/testing';
import type { IncomingMessage } from 'node:http';
import { DataSource } from 'typeorm';
import { ApiAccessModule } from '../src/auth/api-access.module';
import { GatewayConfig, GATEWAY_DEFAULTS } from '../src/config';
import { IdempotencyModule } from '../src/idempotency/idempotency.module';
import { MerchantAccounts } from '../src/merchants/merchant-accounts.service';
import { MerchantsModule } from '../src/merchants/merchants.module';
import { GATEWAY_ENTITIES, GATEWAY_MIGRATIONS } from '../src/migrations/gateway-schema';

export interface TestApi {
  url: string;
  app: NestFastifyApplication;
  config: GatewayConfig;
  accounts: MerchantAccounts;
  /** The gateway schema, for checks and for changes the CLI does not offer. */
  dataSource: DataSource;
  close(): Promise<void>;
}

/** Starts the API on a free port against `db` (migrated at start, as the gateway does). */
export async function startTestApi(
  db: TestDatabase,
  controllers: Array<Type<unknown>>,
  env: Record<string, string> = {},
): Promise<TestApi> {
  const config = loadConfig(
    GatewayConfig,
    { DATABASE_URL: db.url, KAFKA_NAMESPACE: uniqueName('gw'), DB_POOL_SIZE: '4', ...env },
    GATEWAY_DEFAULTS,
  );

  @Global()
  @Module({
    providers: [
      { provide: ServiceConfig, useValue: config },
      { provide: GatewayConfig, useValue: config },
    ],
    exports: [ServiceConfig, GatewayConfig],
  })
  class TestConfigModule {}

  @Module({
    imports: [
      TestConfigModule,
      DatabaseModule.forRoot({ entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS }),
      MerchantsModule,
      ApiAccessModule,
      IdempotencyModule,
    ],
    controllers,
  })
  class TestApiModule {}

  const app = await NestFactory.create<NestFastifyApplication>(
    TestApiModule,
    new FastifyAdapter({ genReqId: (req: unknown) => requestIdFor(req as IncomingMessage), bodyLimit: MAX_BODY_BYTES }),
    { logger: false },
  );
  app.useGlobalFilters(new ApiExceptionFilter());
  app.getHttpAdapter()
    .getInstance()
    .addHook('onRequest', async (request, reply) => {
      void reply.header('Request-Id', String(request.id));
    });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    app,
    config,
    accounts: app.get(MerchantAccounts),
    dataSource: app.get(DataSource),
    close: () => app.close(),
  };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A response body as loosely typed JSON, for assertions. */
export async function jsonOf(res: Response): Promise<any> {
  return res.json();
}
