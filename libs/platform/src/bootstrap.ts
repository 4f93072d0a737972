import { DynamicModule, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { getPriority, setPriority } from 'node:os';
import { ConfigError, loadConfig, parseCommandSecrets, ServiceConfig, trustProxyOption } from '@payments/config';
import { buildAsyncApiDocument } from '@payments/events';
import { shutdownTracing } from '@payments/tracing';
import { Logger } from 'nestjs-pino';
import pino, { type Logger as PinoInstance } from 'pino';
import { DatabaseOptions } from './database/database.module';
import { ApiError } from './errors/api-error';
import { Readiness } from './health/readiness';
import { jsonBodyProblem } from './http/json-body';
import { OperationsServer, type OperationsRoute } from './http/operations.server';
import { ApiExceptionFilter } from './errors/api-exception.filter';
import { answerFrameworkError, answerClientError } from './errors/framework-error';
import { logOptions, requestLogLine } from './logging/log-options';
import { requestIdFor } from './logging/request-id';
import { httpRequestDuration } from './metrics/metrics';
import { PlatformModule } from './platform.module';
import { CommandServer } from './rpc/command.server';
import { installLeanAsyncResourceBind } from './runtime/async-resource-bind';

export const MAX_BODY_BYTES = 64 * 1024;
/** Longer than any id the API issues; an id past it is still only a 404 (the URL itself is bounded by Node). */
const MAX_PATH_PARAM_LENGTH = 8 * 1024;
const API_PREFIX = '/api/';
/** Probes, which would drown the request log. */
const QUIET_ROUTES = /^\/health/;

export interface ServiceDefinition<C extends ServiceConfig> {
  /** Service name: logs, metrics, Kafka client id and consumer group. */
  service: string;
  /** The app's feature module(s). */
  imports: Array<Type<unknown> | DynamicModule>;
  configClass: Type<C>;
  /** Per-service defaults of settings (PORT, DB_SCHEMA, ...). */
  defaults: Record<string, string>;
  database: DatabaseOptions;
  /** Serve commands (@MessagePattern handlers) on the internal COMMAND_PORT. */
  servesCommands?: boolean;
  /** Extra set-up of the HTTP app before listen (OpenAPI, content parsers, ...). */
  configure?: (app: NestFastifyApplication, config: C) => void | Promise<void>;
  /** The service's diagnostics on the operations port (e.g. the gateway's ping of the command path). */
  operations?: (app: NestFastifyApplication) => OperationsRoute[];
}

/** Loads settings or exits with a message naming what is wrong: a service never starts half-configured. */
export function loadConfigOrExit<C extends ServiceConfig>(definition: ServiceDefinition<C>): C {
  try {
    return loadConfig(definition.configClass, process.env, definition.defaults);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${definition.service}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

export function rootModule<C extends ServiceConfig>(definition: ServiceDefinition<C>, config: C, logger: PinoInstance): DynamicModule {
  @Module({})
  class RootModule {}
  return {
    module: RootModule,
    imports: [
      PlatformModule.forRoot({
        service: definition.service,
        config,
        logger,
        configClass: definition.configClass,
        database: definition.database,
        servesCommands: definition.servesCommands,
      }),
      ...definition.imports,
    ],
  };
}

/** Starts one service: HTTP (health, metrics, routes), its command port if it owns commands, graceful shutdown. */
export async function bootstrapService<C extends ServiceConfig>(definition: ServiceDefinition<C>): Promise<NestFastifyApplication> {
  const config = loadConfigOrExit(definition);
  installLeanAsyncResourceBind();
  // maxParamLength: an over-long path id reaches the route (and its Error-shaped 404) instead of Fastify's own 414;
  // beyond it, and for a path that is not valid percent-encoding, answerFrameworkError answers in the Error shape.
  const adapter = new FastifyAdapter({
    genReqId: requestIdFor,
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    maxParamLength: MAX_PATH_PARAM_LENGTH,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  const logger = pino(logOptions(definition.service, config.LOG_LEVEL));
  lowerCpuPriority(config.PROCESS_NICE, logger);
  // Bodies are parsed by parseBodies (bodyParser off: Nest would also accept forms on every route).
  const app = await NestFactory.create<NestFastifyApplication>(rootModule(definition, config, logger), adapter, {
    bufferLogs: true,
    bodyParser: false,
  });
  parseBodies(app.getHttpAdapter().getInstance());
  app.useLogger(app.get(Logger));
  app.useGlobalFilters(new ApiExceptionFilter());

  const fastify = app.getHttpAdapter().getInstance();
  const logsRequests = logger.isLevelEnabled('info');
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('Request-Id', String(request.id));
  });
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    if (logsRequests && !QUIET_ROUTES.test(request.url)) logger.info(requestLogLine(request, reply.statusCode, reply.elapsedTime), 'request completed');
  });

  const commands = definition.servesCommands ? new CommandServer({ port: config.COMMAND_PORT, host: config.COMMAND_HOST, secrets: parseCommandSecrets(config.COMMAND_SECRET) }) : undefined;
  if (commands) app.connectMicroservice<MicroserviceOptions>({ strategy: commands }, { inheritAppConfig: true });
  await definition.configure?.(app, config);

  const operations = new OperationsServer(app.get(Readiness), definition.operations?.(app) ?? [], buildAsyncApiDocument(config.KAFKA_NAMESPACE));
  handleShutdownSignals(app, config.SHUTDOWN_TIMEOUT_MS, commands, operations);

  if (commands) await app.startAllMicroservices();
  await app.listen(config.PORT, '0.0.0.0');
  await operations.listen(config.OPS_PORT);
  return app;
}

/** PROCESS_NICE: lowered only (raising needs privileges a service should not have); a refusal is logged, not fatal. */
function lowerCpuPriority(nice: number, logger: Pick<PinoInstance, 'warn'>): void {
  try {
    if (nice > getPriority()) setPriority(nice);
  } catch (error) {
    logger.warn({ err: error, nice }, 'could not lower the CPU priority (PROCESS_NICE)');
  }
}

/**
 * SIGTERM/SIGINT: stop taking commands (callers move to another instance) and let those in flight answer, then
 * finish the rest of the work, flush the outbox, commit offsets and leave consumer groups (the modules' shutdown
 * hooks), then exit 0. A shutdown that hangs is cut off after SHUTDOWN_TIMEOUT_MS with exit 1.
 */
function handleShutdownSignals(app: NestFastifyApplication, timeoutMs: number, commands: CommandServer | undefined, operations: OperationsServer): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    setTimeout(() => {
      process.stderr.write(`shutdown after ${signal} took longer than ${timeoutMs} ms; exiting\n`);
      process.exit(1);
    }, timeoutMs).unref();
    Promise.resolve(commands?.close())
      .then(() => app.close())
      .then(() => operations.close())
      // The spans of the last requests, exported before the process goes.
      .then(() => shutdownTracing())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`shutdown failed: ${(error as Error).stack ?? String(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

/** Routes under this prefix (providers' notifications) see the raw JSON body as `request.rawBody`. */
export const RAW_BODY_PREFIX = '/providers/';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as received, on routes under RAW_BODY_PREFIX. */
    rawBody?: Buffer;
  }
}

/**
 * JSON bodies are parsed as Fastify does (prototype poisoning refused), then refused with a 400 naming the field
 * when something downstream could not take them (jsonBodyProblem). Form bodies are for pages (the hosted
 * checkout), never for the JSON API: there they are 400 invalid_request (DESIGN §5: a wrong content type is a 400), not
 * parsed into a command.
 */
function parseBodies(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // A provider signs the bytes it sent: its notification routes keep them.
    if (request.url.startsWith(RAW_BODY_PREFIX)) request.rawBody = Buffer.from(String(body), 'utf8');
    // No content is no body, as without the header (many clients send it on every request): routes whose body is
    // optional take it, the others answer that the body must be a JSON object.
    if (String(body).trim() === '') return done(null, undefined);
    parseJson(request, String(body), (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      const problem = jsonBodyProblem(value);
      if (problem) return done(new ApiError('invalid_request', problem.message, problem.param), undefined);
      done(null, value);
    });
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    if (request.url.startsWith(API_PREFIX)) {
      done(new ApiError('invalid_request', 'The API takes JSON bodies: send Content-Type: application/json.'), undefined);
      return;
    }
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
}
