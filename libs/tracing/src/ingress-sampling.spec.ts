import { ROOT_CONTEXT, SpanKind, trace, type Context } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import { randomBytes } from 'node:crypto';
import { ingressSampled, samplerFor } from './sdk';

// The public service decides per request, before any span exists, whether it is recorded.
describe('ingressSampled', () => {
  const traceparent = (traceId: string, flags = '01') => `00-${traceId}-${randomBytes(8).toString('hex')}-${flags}`;

  it("follows the ratio's decision on the caller's trace id, whatever the caller's flag, so one trace id gets one decision", () => {
    const ratio = new TraceIdRatioBasedSampler(0.3);
    let recorded = 0;
    for (let i = 0; i < 2000; i++) {
      const traceId = randomBytes(16).toString('hex');
      const expected = ratio.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
      expect(ingressSampled(ratio, 0.3, traceparent(traceId, '01'))).toBe(expected);
      expect(ingressSampled(ratio, 0.3, traceparent(traceId, '00'))).toBe(expected);
      if (expected) recorded++;
    }
    expect(recorded).toBeGreaterThan(450);
    expect(recorded).toBeLessThan(750);
  });

  it('without a usable traceparent, records about the ratio of requests', () => {
    const ratio = new TraceIdRatioBasedSampler(0.1);
    for (const header of [undefined, 'garbage', traceparent('0'.repeat(32)), ['a', 'b']]) {
      let recorded = 0;
      for (let i = 0; i < 5000; i++) if (ingressSampled(ratio, 0.1, header)) recorded++;
      expect(recorded).toBeGreaterThan(350);
      expect(recorded).toBeLessThan(650);
    }
  });

  it('0 records nothing and 1 everything', () => {
    const id = randomBytes(16).toString('hex');
    expect(ingressSampled(new TraceIdRatioBasedSampler(0), 0, traceparent(id))).toBe(false);
    expect(ingressSampled(new TraceIdRatioBasedSampler(0), 0, undefined)).toBe(false);
    expect(ingressSampled(new TraceIdRatioBasedSampler(1), 1, traceparent(id))).toBe(true);
    expect(ingressSampled(new TraceIdRatioBasedSampler(1), 1, undefined)).toBe(true);
  });
});

describe('samplerFor', () => {
  const remote = (sampled: boolean) =>
    trace.setSpanContext(ROOT_CONTEXT, { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: sampled ? 1 : 0, isRemote: true });
  const decide = (sampler: Sampler, parent: Context, kind: SpanKind) =>
    sampler.shouldSample(parent, randomBytes(16).toString('hex'), 'span', kind, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED;

  it('the public service records the request span the ingress chose, whatever the ratio, and no other span of its own', () => {
    const sampler = samplerFor(0, true, true);
    expect(decide(sampler, ROOT_CONTEXT, SpanKind.SERVER)).toBe(true);
    expect(decide(sampler, remote(false), SpanKind.SERVER)).toBe(true);
    expect(decide(sampler, ROOT_CONTEXT, SpanKind.CLIENT)).toBe(false);
    expect(decide(sampler, remote(false), SpanKind.CONSUMER)).toBe(false);
    // Under a recorded parent (a consumed event of a recorded trace), recorded.
    expect(decide(sampler, remote(true), SpanKind.CONSUMER)).toBe(true);
  });

  it('without the ingress decision (HTTP instrumentation off), the ratio decides the request span', () => {
    expect(decide(samplerFor(0, true, false), ROOT_CONTEXT, SpanKind.SERVER)).toBe(false);
    expect(decide(samplerFor(0, true, false), remote(true), SpanKind.SERVER)).toBe(false);
    expect(decide(samplerFor(1, true, false), ROOT_CONTEXT, SpanKind.SERVER)).toBe(true);
  });

  it('internal services follow their parent, and the ratio for a span without one', () => {
    expect(decide(samplerFor(0, false, true), remote(true), SpanKind.SERVER)).toBe(true);
    expect(decide(samplerFor(1, false, true), remote(false), SpanKind.SERVER)).toBe(false);
    expect(decide(samplerFor(0, false, true), ROOT_CONTEXT, SpanKind.CONSUMER)).toBe(false);
    expect(decide(samplerFor(1, false, true), ROOT_CONTEXT, SpanKind.CONSUMER)).toBe(true);
  });
});
