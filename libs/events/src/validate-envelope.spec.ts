import { newEnvelope } from './new-envelope';
import { registerEventType } from './event-catalogue';
import { EventTypeRegistry } from './event-type.registry';
import { EventValidationError, validateEnvelope } from './validate-envelope';

registerEventType('test.thing_happened', {
  version: 1,
  dataSchema: {
    type: 'object',
    required: ['amount'],
    additionalProperties: false,
    properties: { amount: { type: 'integer', minimum: 0 } },
  },
});

const valid = () =>
  newEnvelope({
    type: 'payment_intent.created',
    aggregate_id: 'pi_123',
    aggregate_type: 'payment_intent',
    sequence: 1,
    merchant_id: 'mer_1',
    environment: 'test',
    correlation_id: 'req_1',
    data: { amount: 1000 },
  });

function problemsOf(value: unknown): string[] {
  try {
    validateEnvelope(value);
  } catch (error) {
    if (error instanceof EventValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected the envelope to be rejected');
}

describe('newEnvelope', () => {
  it('fills id, occurred_at, schema_version and causation_id', () => {
    const envelope = valid();
    expect(envelope.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(envelope.occurred_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(envelope.schema_version).toBe(1);
    expect(envelope.causation_id).toBeNull();
  });

  it('refuses a type nobody registered', () => {
    expect(() => newEnvelope({ ...valid(), type: 'nobody.knows', schema_version: undefined })).toThrow(/unknown event type/);
  });
});

describe('validateEnvelope', () => {
  it('accepts a built envelope of a public type and returns it', () => {
    const envelope = valid();
    expect(validateEnvelope(envelope)).toBe(envelope);
  });

  it('accepts a JSON round trip with a causation id', () => {
    const envelope = { ...valid(), causation_id: 'evt_000000000000000000000000' };
    expect(validateEnvelope(JSON.parse(JSON.stringify(envelope)))).toEqual(envelope);
  });

  it('lists every problem, not just the first', () => {
    const { merchant_id: _dropped, ...rest } = valid();
    const problems = problemsOf({ ...rest, id: 'pi_nope', sequence: 0, environment: 'prod', extra: 1 });
    expect(problems).toEqual(
      expect.arrayContaining([
        "/ must have required property 'merchant_id'",
        '/ must NOT have additional properties (extra)',
        expect.stringMatching(/^\/id must match pattern/),
        '/sequence must be >= 1',
        '/environment must be equal to one of the allowed values (live, test)',
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('puts every problem in the error message, with the event id', () => {
    const envelope = { ...valid(), sequence: 1.5, occurred_at: '2025-01-01T10:00:00+02:00' };
    expect(() => validateEnvelope(envelope)).toThrow(EventValidationError);
    expect(() => validateEnvelope(envelope)).toThrow(
      new RegExp(`^invalid event ${envelope.id}: .*/sequence must be integer.*; /occurred_at must match pattern`),
    );
  });

  it('rejects unknown event types', () => {
    expect(problemsOf({ ...valid(), type: 'payment_intent.teleported' })).toEqual([
      '/type unknown event type "payment_intent.teleported"',
    ]);
  });

  it('rejects a schema version that is not registered', () => {
    expect(problemsOf({ ...valid(), schema_version: 7 })).toEqual([
      '/schema_version 7 is not registered for payment_intent.created',
    ]);
  });

  it('checks data against the schema registered for the type', () => {
    const envelope = { ...valid(), type: 'test.thing_happened', data: { amount: -1, note: 'x' } };
    expect(problemsOf(envelope)).toEqual(['/data must NOT have additional properties (note)', '/data/amount must be >= 0']);
    expect(validateEnvelope({ ...envelope, data: { amount: 5 } }).data).toEqual({ amount: 5 });
  });

  it('rejects values that are not objects, and data that is not an object', () => {
    expect(problemsOf(null)).toEqual(['/ must be object']);
    expect(problemsOf('evt')).toEqual(['/ must be object']);
    expect(problemsOf({ ...valid(), data: [1] })).toEqual(['/data must be object']);
  });

  it('accepts a registry passed explicitly, and validates against it only', () => {
    const registry = new EventTypeRegistry();
    registry.register('other.done', { version: 2, dataSchema: { type: 'object' } });
    const envelope = { ...valid(), type: 'other.done', schema_version: 2 };
    expect(validateEnvelope(envelope, registry)).toBe(envelope);
    expect(() => validateEnvelope(valid(), registry)).toThrow(/unknown event type "payment_intent.created"/);
  });
});

describe('EventTypeRegistry', () => {
  it('keeps several versions and answers the latest by default', () => {
    const registry = new EventTypeRegistry();
    registry.register('thing.moved', { version: 1, dataSchema: { type: 'object' } });
    registry.register('thing.moved', { version: 2, dataSchema: { type: 'object', required: ['to'] } });
    expect(registry.get('thing.moved')?.version).toBe(2);
    expect(registry.get('thing.moved', 1)?.version).toBe(1);
  });

  it('allows registering the same definition twice but not a conflicting one', () => {
    const registry = new EventTypeRegistry();
    registry.register('thing.moved', { version: 1, dataSchema: { type: 'object' } });
    expect(() => registry.register('thing.moved', { version: 1, dataSchema: { type: 'object' } })).not.toThrow();
    expect(() => registry.register('thing.moved', { version: 1, dataSchema: { type: 'string' } })).toThrow(
      /already registered/,
    );
  });

  it('rejects bad names and versions', () => {
    const registry = new EventTypeRegistry();
    expect(() => registry.register('Thing', { version: 1, dataSchema: {} })).toThrow(/invalid event type name/);
    expect(() => registry.register('thing.moved', { version: 0, dataSchema: {} })).toThrow(/version/);
  });
});
