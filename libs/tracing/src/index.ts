// Distributed tracing (OpenTelemetry): starting the SDK when an OTLP endpoint is set, and the few helpers the
// platform, the messaging lib and the services use to make spans and carry the W3C trace context. This lib's index
// loads @opentelemetry/api only; the SDK is required by startTracing, and only when tracing is on.

export { shutdownTracing, startTracing, type StartTracingOptions } from './start-tracing';
export { tracingSettings, TracingSettingsError, type TracingSettings } from './tracing-settings';
export {
  contextFromHeaders,
  injectTraceHeaders,
  inSpan,
  markFailed,
  recordingIn,
  setTracingEnabled,
  TRACE_HEADER_NAMES,
  traceHeadersOf,
  tracedContextOf,
  traceLogFields,
  tracer,
  tracingEnabled,
  type TraceHeaders,
} from './trace-context';
