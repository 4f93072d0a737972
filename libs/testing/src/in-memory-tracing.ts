import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { setTracingEnabled } from '@payments/tracing';

/**
 * Tracing inside a test process: every span recorded in memory, the W3C propagator and async context registered as
 * a service's SDK registers them, and the services' code told tracing is on. `stop()` undoes all of it.
 */
export interface InMemoryTracing {
  spans(): ReadableSpan[];
  /** The recorded span named `name` (exactly one). */
  span(name: string): ReadableSpan;
  reset(): void;
  stop(): Promise<void>;
}

export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(true);
  return {
    spans: () => exporter.getFinishedSpans(),
    span(name) {
      const found = exporter.getFinishedSpans().filter((s) => s.name === name);
      if (found.length !== 1) throw new Error(`${found.length} spans named ${name}`);
      return found[0]!;
    },
    reset: () => exporter.reset(),
    async stop() {
      setTracingEnabled(false);
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
