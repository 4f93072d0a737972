import { setTracingEnabled } from './trace-context';
import { tracingSettings, TracingSettingsError } from './tracing-settings';

export interface StartTracingOptions {
  /** The service answers the public: callers' traceparent does not decide what is recorded (see sdk.ts). */
  publicIngress?: boolean;
  /** Instrument Fastify's routes (@fastify/otel). */
  fastify?: boolean;
}

let running: { shutdown(): Promise<void> } | undefined;

/**
 * Starts tracing for `service` when an OTLP endpoint is set; otherwise does nothing at all (the SDK is not even
 * required). Must run before the modules it instruments are loaded: each service's `tracing.ts`, imported first
 * by its main.ts. A setting it cannot use ends the process with a message, as any other setting does.
 */
export function startTracing(service: string, options: StartTracingOptions = {}, env: NodeJS.ProcessEnv = process.env): boolean {
  if (running) return true;
  let settings;
  try {
    settings = tracingSettings(env, service);
  } catch (error) {
    if (!(error instanceof TracingSettingsError)) throw error;
    process.stderr.write(`${service}: ${error.message}\n`);
    process.exit(1);
  }
  if (!settings) return false;
  // Required here, not imported: with tracing off the SDK is never loaded.
  const { startSdk } = require('./sdk') as typeof import('./sdk');
  running = startSdk(settings, { publicIngress: options.publicIngress ?? false, fastify: options.fastify ?? false });
  setTracingEnabled(true);
  return true;
}

/** Exports the spans still buffered (graceful shutdown); nothing when tracing is off. Never throws. */
export async function shutdownTracing(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown().catch(() => undefined);
}
