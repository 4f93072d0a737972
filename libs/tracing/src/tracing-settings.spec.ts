import { tracingSettings, TracingSettingsError } from './tracing-settings';

describe('tracing settings', () => {
  it('is off without an OTLP endpoint, or when disabled', () => {
    expect(tracingSettings({}, 'sessions')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, 'sessions')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }, 'sessions')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }, 'sessions')).toBeUndefined();
  });

  it('is on with either endpoint: every trace, OTLP protobuf, named after the service unless OTEL_SERVICE_NAME says', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'sessions')).toEqual({ serviceName: 'sessions', ratio: 1, protocol: 'http/protobuf' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_SERVICE_NAME: 'sessions-eu' }, 'sessions')).toMatchObject({ serviceName: 'sessions-eu' });
  });

  it('samples the ratio of OTEL_TRACES_SAMPLER_ARG', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracingSettings({ ...on, OTEL_TRACES_SAMPLER_ARG: '0.1' }, 'gateway')?.ratio).toBe(0.1);
    expect(tracingSettings({ ...on, OTEL_TRACES_SAMPLER_ARG: '0' }, 'gateway')?.ratio).toBe(0);
    for (const bad of ['10%', '1.5', '-0.1', 'abc']) expect(() => tracingSettings({ ...on, OTEL_TRACES_SAMPLER_ARG: bad }, 'gateway')).toThrow(TracingSettingsError);
  });

  it('exports OTLP over HTTP as protobuf or JSON; gRPC is refused', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracingSettings({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'gateway')?.protocol).toBe('http/json');
    expect(tracingSettings({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }, 'gateway')?.protocol).toBe('http/json');
    expect(() => tracingSettings({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'gateway')).toThrow(/gRPC is not shipped/);
  });
});
