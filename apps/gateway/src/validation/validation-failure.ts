import type { ValidationError } from 'class-validator';

export interface ValidationFailure {
  /** Dotted path of the field, e.g. `customer.email` or `items.0.name`. */
  param: string;
  message: string;
}

// When a field breaks several rules, the most basic one explains it best ("must be a string" before "too long").
const FIRST_CONSTRAINTS = [
  'whitelistValidation',
  'isDefined',
  'nestedValidation',
  'isObject',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isIn',
  'isEnum',
];

/** The first field that failed (depth first, in declaration order) as a param path and a sentence. */
export function firstValidationFailure(errors: readonly ValidationError[], parentPath = ''): ValidationFailure | undefined {
  for (const error of errors) {
    const path = parentPath === '' ? error.property : `${parentPath}.${error.property}`;
    const constraints = error.constraints ?? {};
    const names = Object.keys(constraints);
    if (names.length > 0) {
      const name = FIRST_CONSTRAINTS.find((c) => c in constraints) ?? (names[0] as string);
      return { param: path, message: sentence(name, constraints[name] as string, error.property, path) };
    }
    const nested = firstValidationFailure(error.children ?? [], path);
    if (nested) return nested;
  }
  return undefined;
}

function sentence(constraint: string, message: string, property: string, path: string): string {
  if (constraint === 'whitelistValidation') return `${path} is not an accepted field.`;
  if (constraint === 'nestedValidation' || constraint === 'unknownValue') return `${path} must be an object.`;
  // class-validator messages start with the property name (or, when written out, its full path); give the path once.
  const text = message.startsWith(`${path} `)
    ? message
    : message.startsWith(`${property} `)
      ? `${path}${message.slice(property.length)}`
      : `${path}: ${message}`;
  return text.endsWith('.') ? text : `${text}.`;
}
