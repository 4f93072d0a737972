import { ArgumentMetadata, PipeTransform, Type } from '@nestjs/common';
import { ApiError } from '@payments/platform';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { firstValidationFailure } from './validation-failure';

export interface ApiValidationOptions {
  /**
   * Reject fields the DTO does not declare (400 with the field as param). Nested DTOs always reject unknown
   * fields; with false only the top level accepts (and drops) them, as payment-intent create must.
   */
  forbidUnknown: boolean;
}

const PRIMITIVES: ReadonlyArray<Type<unknown>> = [String, Boolean, Number, Array, Object];

/**
 * Validates and converts a DTO with class-validator/class-transformer. Any failure is 400 invalid_request with
 * `param` = the dotted path of the first failing field; a body that is not a JSON object is 400 as well.
 * No implicit type conversion: `"300"` is not an integer and `10` is not a MoneyString.
 */
export class ApiValidationPipe implements PipeTransform {
  constructor(private readonly options: ApiValidationOptions) {}

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype;
    if (!metatype || metadata.type === 'custom' || PRIMITIVES.includes(metatype)) return value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError('invalid_request', metadata.type === 'body' ? 'The request body must be a JSON object.' : 'The request is invalid.');
    }
    const instance = plainToInstance(metatype, value, { enableImplicitConversion: false }) as object;
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
    });
    const relevant = this.options.forbidUnknown ? errors : this.dropUnknownTopLevel(instance, errors);
    const failure = firstValidationFailure(relevant);
    if (failure) throw new ApiError('invalid_request', failure.message, failure.param);
    if (relevant.length > 0) throw new ApiError('invalid_request', 'The request is invalid.');
    return instance;
  }

  /** Top-level unknown fields are accepted: they are removed from the DTO and not reported. */
  private dropUnknownTopLevel(instance: object, errors: ValidationError[]): ValidationError[] {
    return errors.filter((error) => {
      const names = Object.keys(error.constraints ?? {});
      const unknownField = names.length === 1 && names[0] === 'whitelistValidation' && !error.children?.length;
      if (unknownField) delete (instance as Record<string, unknown>)[error.property];
      return !unknownField;
    });
  }
}

/** The pipe for `@Body(apiValidationPipe({ forbidUnknown }))` or `@UsePipes(...)`. */
export function apiValidationPipe(options: ApiValidationOptions): ApiValidationPipe {
  return new ApiValidationPipe(options);
}
