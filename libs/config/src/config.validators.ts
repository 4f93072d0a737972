import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsUrl, ValidateBy, type ValidationArguments, type ValidationOptions } from 'class-validator';

function isProduction(args: ValidationArguments): boolean {
  return (args.object as { NODE_ENV?: string }).NODE_ENV === 'production';
}

/** A development switch that must stay off when NODE_ENV=production. */
export function OffInProduction(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'offInProduction',
      validator: {
        validate: (value: unknown, args: ValidationArguments) => !(isProduction(args) && value === true),
        defaultMessage: (args: ValidationArguments) => `${args.property} is a development setting and is refused when NODE_ENV=production`,
      },
    },
    options,
  );
}

/**
 * A setting whose built-in default is for development only (a public key, say): it must be set when
 * NODE_ENV=production. `equals` decides what counts as the default (e.g. the same key spelled otherwise).
 */
export function NotDefaultInProduction<T>(
  defaultValue: T,
  { equals = Object.is, ...options }: ValidationOptions & { equals?: (value: unknown, defaultValue: T) => boolean } = {},
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notDefaultInProduction',
      validator: {
        validate: (value: unknown, args: ValidationArguments) => !(isProduction(args) && equals(value, defaultValue)),
        defaultMessage: (args: ValidationArguments) => `${args.property} must be set when NODE_ENV=production (the built-in default is for development only)`,
      },
    },
    options,
  );
}

/**
 * Valid when `parse` accepts the value (does not throw). The message says what is `expected` and what the parser
 * found wrong, never the value itself (settings may be secrets).
 */
export function Parses(parse: (value: string) => unknown, expected: string, options?: ValidationOptions): PropertyDecorator {
  const problem = (value: unknown, property: string): string | undefined => {
    if (typeof value !== 'string') return 'not set';
    try {
      parse(value);
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
    }
  };
  return ValidateBy(
    {
      name: 'parses',
      validator: {
        validate: (value: unknown, args: ValidationArguments) => problem(value, args.property) === undefined,
        defaultMessage: (args: ValidationArguments) => `${args.property} must be ${expected}: ${problem(args.value, args.property)}`,
      },
    },
    options,
  );
}

/**
 * For `@Transform`: `1`/`true`/`yes` or `0`/`false`/`no` (any case); anything else becomes null so the boolean
 * check names it. Reads the raw setting: implicit conversion has already made any non-empty string `true`.
 */
export function parseFlag({ obj, key, value }: { obj: Record<string, unknown>; key: string; value: unknown }): unknown {
  const raw = obj[key];
  if (raw === undefined) return value;
  if (typeof raw === 'boolean') return raw;
  const text = String(raw).trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(text)) return true;
  if (['0', 'false', 'no'].includes(text)) return false;
  return null;
}

const urlList = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value;

/**
 * A comma-separated list of an owning service's instances, e.g. `tcp://sessions-0:4001,tcp://sessions-1:4001`
 * (`http://` is taken as the same address: settings written for the earlier HTTP command transport keep working).
 */
export function CommandUrls(): PropertyDecorator {
  const decorators = [
    Transform(urlList),
    ArrayNotEmpty(),
    IsUrl({ require_tld: false, protocols: ['tcp', 'http'], require_protocol: true, require_port: true }, { each: true }),
  ];
  return (target, property) => decorators.forEach((decorate) => decorate(target, property));
}
