import { HTTPS_URL_SCHEMA } from '@payments/contracts';
import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

const MAX_URL_LENGTH = HTTPS_URL_SCHEMA.maxLength;

/** True for an absolute URL that starts with `https://` and has a host (success_url, cancel_url, ...). */
export function isHttpsUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH || !value.startsWith('https://') || /\s/.test(value)) {
    return false;
  }
  return URL.canParse(value) && new URL(value).hostname.length > 0;
}

export function IsHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isHttpsUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: isHttpsUrl,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be a URL starting with https:// (at most ${MAX_URL_LENGTH} characters)`,
      },
    });
  };
}
