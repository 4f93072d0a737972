import { Body, PipeTransform } from '@nestjs/common';
import { ApiError } from '@payments/platform';

/** The body of a route that takes none: left out, or `{}`. */
export type NoBody = Record<string, never>;

/**
 * Refuses a body with anything in it: a field sent to a route that reads none would be silently ignored. JSON
 * `null` is a body that is not an object: 400, as everywhere.
 */
class NoBodyPipe implements PipeTransform {
  transform(value: unknown): NoBody {
    if (value === undefined) return {};
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ApiError('invalid_request', 'The request body must be a JSON object.');
    const [field] = Object.keys(value);
    if (field !== undefined) throw new ApiError('invalid_request', `${field} is not an accepted field: this request takes no body.`, field);
    return {};
  }
}

/**
 * For routes that take no body (cancel, enable, test, resend): any field sent is a 400 naming it, as unknown fields
 * are everywhere but on payment-intent create (DESIGN §5), never silently ignored.
 */
export const NoBodyFields = (): ParameterDecorator => Body(new NoBodyPipe());
