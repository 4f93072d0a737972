import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ENVELOPE_SCHEMA } from './envelope.schema';
import type { EventEnvelope } from './event-envelope';
import { eventTypes } from './event-catalogue';
import type { RegisteredEventType } from './event-type';
import type { EventTypeRegistry } from './event-type.registry';

/** Thrown for a value that is not a valid envelope of a registered type; lists every problem found. */
export class EventValidationError extends Error {
  constructor(
    readonly problems: string[],
    readonly eventId?: string,
  ) {
    super(`invalid event${eventId ? ` ${eventId}` : ''}: ${problems.join('; ')}`);
    this.name = 'EventValidationError';
  }
}

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);
const envelopeValidator = ajv.compile(ENVELOPE_SCHEMA);
const dataValidators = new WeakMap<RegisteredEventType, ValidateFunction>();

function dataValidator(definition: RegisteredEventType): ValidateFunction {
  let validate = dataValidators.get(definition);
  if (!validate) {
    validate = ajv.compile(definition.dataSchema);
    dataValidators.set(definition, validate);
  }
  return validate;
}

function describe(error: ErrorObject, prefix = ''): string {
  const path = `${prefix}${error.instancePath}` || '/';
  const params = error.params as Record<string, unknown>;
  const detail =
    params.additionalProperty !== undefined
      ? ` (${String(params.additionalProperty)})`
      : params.allowedValues !== undefined
        ? ` (${(params.allowedValues as unknown[]).join(', ')})`
        : '';
  return `${path} ${error.message ?? 'is invalid'}${detail}`;
}

/**
 * Checks the envelope and its `data` against the schema registered for `type` + `schema_version`.
 * Unknown types and versions are rejected: a consumer never acts on an event nobody described.
 */
export function validateEnvelope(value: unknown, registry: EventTypeRegistry = eventTypes): EventEnvelope {
  const problems: string[] = [];
  if (!envelopeValidator(value)) problems.push(...(envelopeValidator.errors ?? []).map((e) => describe(e)));

  const candidate = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof EventEnvelope, unknown>>;
  if (typeof candidate.type === 'string') {
    if (!registry.has(candidate.type)) {
      problems.push(`/type unknown event type "${candidate.type}"`);
    } else if (Number.isInteger(candidate.schema_version)) {
      const definition = registry.get(candidate.type, candidate.schema_version as number);
      if (!definition) {
        problems.push(`/schema_version ${String(candidate.schema_version)} is not registered for ${candidate.type}`);
      } else if (typeof candidate.data === 'object' && candidate.data !== null && !Array.isArray(candidate.data)) {
        const validate = dataValidator(definition);
        if (!validate(candidate.data)) problems.push(...(validate.errors ?? []).map((e) => describe(e, '/data')));
      }
    }
  }

  if (problems.length > 0) {
    throw new EventValidationError(problems, typeof candidate.id === 'string' ? candidate.id : undefined);
  }
  return value as EventEnvelope;
}
