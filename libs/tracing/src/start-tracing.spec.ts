// Off must cost nothing: without an endpoint startTracing neither loads the SDK nor marks tracing on.
jest.mock('./sdk', () => {
  throw new Error('the SDK was loaded');
});

import { startTracing } from './start-tracing';
import { tracingEnabled } from './trace-context';

describe('startTracing with no endpoint', () => {
  it('does nothing: the SDK module is never required', () => {
    expect(startTracing('sessions', {}, {})).toBe(false);
    expect(startTracing('gateway', { publicIngress: true, fastify: true }, { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(false);
    expect(tracingEnabled()).toBe(false);
  });

  it('the SDK module would have been required with one (the mock throws)', () => {
    expect(() => startTracing('sessions', {}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' })).toThrow('the SDK was loaded');
  });
});
