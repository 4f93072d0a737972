/**
 * JSON Schema (draft-07, what ajv and AsyncAPI 3.0 both read) of the envelope. `data` is only required to be an
 * object here; its shape is checked against the schema registered for `type` + `schema_version`.
 */
export const ENVELOPE_SCHEMA = {
  $id: 'https://schemas.payments.local/events/envelope.json',
  title: 'EventEnvelope',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'type',
    'schema_version',
    'aggregate_id',
    'aggregate_type',
    'sequence',
    'merchant_id',
    'environment',
    'occurred_at',
    'correlation_id',
    'causation_id',
    'data',
  ],
  properties: {
    id: { type: 'string', pattern: '^evt_[0-9A-Za-z]{24}$', description: 'Unique event id.' },
    type: { type: 'string', pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$', description: 'Event type, e.g. payment_intent.succeeded.' },
    schema_version: { type: 'integer', minimum: 1, description: 'Version of the data schema of this type.' },
    aggregate_id: { type: 'string', minLength: 1, description: 'Id of the aggregate; also the Kafka message key.' },
    aggregate_type: { type: 'string', minLength: 1 },
    sequence: { type: 'integer', minimum: 1, description: "Version of the aggregate's stream this event produced." },
    merchant_id: { type: 'string', minLength: 1 },
    environment: { type: 'string', enum: ['live', 'test'] },
    occurred_at: {
      type: 'string',
      format: 'date-time',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$',
      description: 'ISO 8601 in UTC.',
    },
    correlation_id: { type: 'string', minLength: 1, description: 'Id of the request that started the chain.' },
    causation_id: { type: ['string', 'null'], minLength: 1, description: 'Id of the event or command that caused this one.' },
    data: { type: 'object' },
  },
} as const;
