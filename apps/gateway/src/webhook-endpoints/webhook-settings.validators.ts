import { DEVELOPMENT_WEBHOOK_SECRETS_KEY, parseSecretsKey } from '@payments/webhooks';
import { registerDecorator, ValidationArguments } from 'class-validator';

function isProduction(args: ValidationArguments): boolean {
  return (args.object as { NODE_ENV?: string }).NODE_ENV === 'production';
}

/** Base64 (or base64url) of a 32-byte AES-256 key; the development default is refused in production. */
export function IsWebhookSecretsKey(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isWebhookSecretsKey',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          keyProblem(value) === undefined && !(isProduction(args) && isDevelopmentKey(value)),
        defaultMessage: (args: ValidationArguments) =>
          keyProblem(args.value) !== undefined
            ? `${args.property} must be 32 random bytes in base64 (e.g. \`openssl rand -base64 32\`): ${keyProblem(args.value)}`
            : `${args.property} must be set to a secret key when NODE_ENV=production (the built-in one is for development only)`,
      },
    });
  };
}

function keyProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'not set';
  try {
    parseSecretsKey(value);
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^WEBHOOK_SECRETS_KEY /, '');
  }
}

/** The built-in key, however it is spelled (base64 or base64url, padded or not). */
function isDevelopmentKey(value: unknown): boolean {
  return typeof value === 'string' && parseSecretsKey(value).equals(parseSecretsKey(DEVELOPMENT_WEBHOOK_SECRETS_KEY));
}

/** A development switch that must stay off when NODE_ENV=production. */
export function OffInProduction(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'offInProduction',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) => !(isProduction(args) && value === true),
        defaultMessage: (args: ValidationArguments) => `${args.property} is a development setting and is refused when NODE_ENV=production`,
      },
    });
  };
}

/**
 * `1`/`true`/`yes` or `0`/`false`/`no` (any case); anything else becomes null so the boolean check names it.
 * Reads the raw setting: implicit conversion has already made any non-empty string `true`.
 */
export function parseFlag({ obj, key }: { obj: Record<string, unknown>; key: string }): boolean | null {
  const value = obj[key];
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(text)) return true;
  if (['0', 'false', 'no'].includes(text)) return false;
  return null;
}
