import { ValidateBy, type ValidationArguments } from 'class-validator';

/** The lease must outlast an attempt, or a slow attempt could be claimed and sent again by another instance. */
export function LeaseLongerThanTimeout(): PropertyDecorator {
  return ValidateBy({
    name: 'leaseLongerThanTimeout',
    validator: {
      validate: (value: unknown, args: ValidationArguments) => typeof value === 'number' && value >= (args.object as { WEBHOOK_TIMEOUT_MS: number }).WEBHOOK_TIMEOUT_MS + 5000,
      defaultMessage: (args: ValidationArguments) => `${args.property} must be at least WEBHOOK_TIMEOUT_MS + 5000`,
    },
  });
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
