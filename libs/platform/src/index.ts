// What a service takes from the platform, by concern. Internals (the Kafka module and its tokens, the health
// indicator, the log serializers, the metric instances other than the registry) stay inside the lib.

// Starting a service: config, logging, HTTP server, Kafka, database, migrations and shutdown in one call.
export { bootstrapService, MAX_BODY_BYTES, RAW_BODY_PREFIX } from './bootstrap';
export { IntervalJob } from './jobs/interval-job';
export { CLAIM_LEASE_MS, CLAIM_RENEW_EVERY_MS, keepingClaims, type HeldClaims, type KeepingClaimsOptions } from './jobs/claim-lease';

// Errors in the spec's Error shape.
export { ApiError } from './errors/api-error';
export { ApiExceptionFilter } from './errors/api-exception.filter';

// Postgres through TypeORM.
export { DatabaseModule, dataSourceOptions, migrationDataSourceOptions } from './database/database.module';
export { runMigrationsLocked } from './database/run-migrations';

// Kafka hosting: the outbox relay and event consumers as Nest providers with health and shutdown.
export { eventConsumerProvider, type ConsumerDefinition } from './kafka/event-consumer.host';

// Observability.
export { requestIdFor } from './logging/request-id';
export { metricsRegistry } from './metrics/metrics';

// The command transport: gateway → owning service, framed JSON on the owner's internal port.
export { commandPattern, serviceOfPattern } from './rpc/command-pattern';
export { type RpcReply, type RpcRequest } from './rpc/rpc-message';
export { encodeFrame, FrameDecoder, type AnswerFrame, type CommandFrame } from './rpc/command-frames';
export { serveCommand, type ErrorMapper } from './rpc/serve-command';
export { ServiceClient, type CommandOptions } from './rpc/service-client';
export { CommandClient, CommandUnavailableError, type CommandClientOptions } from './rpc/command.client';
export { CommandServer, CommandContext } from './rpc/command.server';
export { type PingAnswer } from './rpc/ping.controller';

// The operations port (metrics, readiness, diagnostics) and readiness checks.
export { OperationsServer, type OperationsRoute } from './http/operations.server';
export { Readiness, type ReadinessResult } from './health/readiness';
