import { METADATA_SCHEMA } from '@payments/contracts';
import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/** DESIGN §5 Validation: metadata is a free-form object with these bounds (its schema in @payments/contracts). */
export const METADATA_LIMITS = {
  maxKeys: METADATA_SCHEMA.maxProperties,
  maxKeyLength: METADATA_SCHEMA.propertyNames.maxLength,
  maxStringLength: METADATA_SCHEMA.additionalProperties.maxLength,
} as const;

/** Characters as a reader (and the other layers: class-validator, the command schema's ajv) counts them: code points. */
const characters = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

/** What is wrong with a metadata value, or undefined when it is fine. */
export function metadataProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  const keys = Object.keys(value);
  if (keys.length > METADATA_LIMITS.maxKeys) return `may have at most ${METADATA_LIMITS.maxKeys} keys`;
  for (const key of keys) {
    if (key.length === 0 || characters(key) > METADATA_LIMITS.maxKeyLength) {
      return `keys must be 1 to ${METADATA_LIMITS.maxKeyLength} characters (${JSON.stringify(key.slice(0, 50))} is not)`;
    }
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'string' && characters(item) > METADATA_LIMITS.maxStringLength) {
      return `values must be at most ${METADATA_LIMITS.maxStringLength} characters (the value of ${JSON.stringify(key)} is longer)`;
    }
  }
  return undefined;
}

/** A metadata object: at most 50 keys, keys of at most 40 characters, string values of at most 500. */
export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => metadataProblem(value) === undefined,
        defaultMessage: (args: ValidationArguments) => `${args.property} ${metadataProblem(args.value) ?? 'is invalid'}`,
      },
    });
  };
}
