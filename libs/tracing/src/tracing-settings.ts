/**
 * Whether and how a service traces, from the standard OpenTelemetry variables. Tracing is on only when an OTLP
 * endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT); off, nothing of the SDK is
 * loaded.
 */
export interface TracingSettings {
  /** The resource's service.name: OTEL_SERVICE_NAME, or the service's own name. */
  serviceName: string;
  /**
   * Share of new traces recorded (OTEL_TRACES_SAMPLER_ARG, 0..1, default 1): parent-based, so a hop whose caller
   * recorded the trace records its part too, and one whose caller did not, does not.
   */
  ratio: number;
  /** OTLP over HTTP: protobuf (the standard's default) or JSON. gRPC is not shipped. */
  protocol: 'http/protobuf' | 'http/json';
}

export class TracingSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TracingSettingsError';
  }
}

/** The settings, or undefined when tracing is off; throws TracingSettingsError on a value it cannot use. */
export function tracingSettings(env: Readonly<Record<string, string | undefined>>, service: string): TracingSettings | undefined {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '').trim() || (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  if (endpoint === '') return undefined;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return undefined;

  const ratioText = (env.OTEL_TRACES_SAMPLER_ARG ?? '').trim();
  const ratio = ratioText === '' ? 1 : Number(ratioText);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(ratioText === '' ? '1' : ratioText) || !(ratio >= 0 && ratio <= 1)) {
    throw new TracingSettingsError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 (e.g. 0.1), not "${ratioText}"`);
  }
  const protocol = ((env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? '').trim() || (env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim() || 'http/protobuf').toLowerCase();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new TracingSettingsError(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, not "${protocol}" (gRPC is not shipped)`);
  }
  return { serviceName: (env.OTEL_SERVICE_NAME ?? '').trim() || service, ratio, protocol };
}
