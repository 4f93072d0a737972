import { DEVELOPMENT_WEBHOOK_SECRETS_KEY } from '@payments/webhooks';
import { registerDecorator, type ValidationArguments } from 'class-validator';

function isProduction(args: ValidationArguments): boolean {
  return (args.object as { NODE_ENV?: string }).NODE_ENV === 'production';
}

/** Same rule as parseSecretsKey (which the service uses to load it), without throwing. */
function validKey(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value.trim())) return false;
  return Buffer.from(value.trim(), 'base64').length === 32;
}

function decorator(name: string, validate: (value: unknown, args: ValidationArguments) => boolean, message: (args: ValidationArguments) => string): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      validator: { validate, defaultMessage: message },
    });
  };
}

/** Base64 of a 32-byte key; the development default is refused in production. */
export function IsWebhookSecretsKey(): PropertyDecorator {
  return decorator(
    'isWebhookSecretsKey',
    (value, args) => validKey(value) && !(isProduction(args) && value === DEVELOPMENT_WEBHOOK_SECRETS_KEY),
    (args) =>
      validKey(args.value)
        ? `${args.property} must be set to a secret key when NODE_ENV=production (the built-in one is for development only)`
        : `${args.property} must be 32 random bytes in base64 (e.g. \`openssl rand -base64 32\`)`,
  );
}

/** A development switch that must stay off when NODE_ENV=production. */
export function OffInProduction(): PropertyDecorator {
  return decorator(
    'offInProduction',
    (value, args) => !(isProduction(args) && value === true),
    (args) => `${args.property} is a development setting and is refused when NODE_ENV=production`,
  );
}

/** The lease must outlast an attempt, or a slow attempt could be claimed and sent again by another instance. */
export function LeaseLongerThanTimeout(): PropertyDecorator {
  return decorator(
    'leaseLongerThanTimeout',
    (value, args) => typeof value === 'number' && value >= (args.object as { WEBHOOK_TIMEOUT_MS: number }).WEBHOOK_TIMEOUT_MS + 5000,
    (args) => `${args.property} must be at least WEBHOOK_TIMEOUT_MS + 5000`,
  );
}

/**
 * `1`/`true`/`yes` or `0`/`false`/`no` (any case); anything else becomes null so the boolean check names it.
 * Reads the raw setting: implicit conversion has already made any non-empty string `true`.
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

/** `5000,300000,...` to numbers; a part that is not a whole number stays as text so the check names it. */
export function parseMillisList({ obj, key, value }: { obj: Record<string, unknown>; key: string; value: unknown }): unknown {
  const raw = obj[key];
  if (typeof raw !== 'string') return value;
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}
