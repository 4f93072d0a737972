import type { ApiPropertyOptions } from '@nestjs/swagger';

/** The JSON Schema keywords the API document shows for a field. */
const DOCUMENTED = ['type', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'enum', 'default', 'description', 'example', 'uniqueItems', 'minItems', 'maxItems', 'maxProperties'] as const;

/**
 * A field's OpenAPI entry, taken from its schema in @payments/contracts (the schema the owning service validates
 * the command with), so the document and the two validations state the same limits.
 */
export function schemaProperty(fragment: object, extra: ApiPropertyOptions = {}): ApiPropertyOptions {
  const source = fragment as Record<string, unknown>;
  const options: Record<string, unknown> = {};
  for (const key of DOCUMENTED) if (source[key] !== undefined) options[key] = source[key];
  if (source.type === 'array') {
    const items = source.items as Record<string, unknown>;
    options.type = [String];
    if (items.enum) options.enum = items.enum;
  }
  if (source.type === 'object') options.additionalProperties = source.additionalProperties !== false;
  return { ...options, ...extra } as ApiPropertyOptions;
}
