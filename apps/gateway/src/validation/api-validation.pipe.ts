import { ArgumentMetadata, PipeTransform, Type } from '@nestjs/common';
import { ApiError } from '@payments/platform';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, ValidationError } from 'class-validator';
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
 * Names every object inherits (`constructor`, `toString`, `__proto__`, ...). class-transformer skips a key the
 * target already has as a function and throws on a nested `constructor`, so such keys never reached validation:
 * an unknown `customer.toString` passed, a metadata key `valueOf` vanished, a nested `constructor` was a 500.
 */
const INHERITED_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The merchant's free-form object: validated as sent (IsMetadata), never transformed, so every key is kept. */
const FREE_FORM = 'metadata';

/** The top-level fields a DTO declares (every field has at least one validation decorator). */
function declaredFields(metatype: Type<unknown>): Set<string> {
  return new Set(getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false).map((metadata) => metadata.propertyName));
}

/** The dotted path of the first key named like an inherited member, outside the free-form object. */
function inheritedNameIn(value: object, path: string[] = []): string[] | undefined {
  for (const [key, item] of Object.entries(value)) {
    if (path.length === 0 && key === FREE_FORM) continue;
    if (INHERITED_NAMES.has(key)) return [...path, key];
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      const found = inheritedNameIn(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

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
    const plain = { ...(value as Record<string, unknown>) };
    if (!this.options.forbidUnknown) {
      // Unknown top-level fields are dropped unread: whatever they hold (a nested `constructor` too) is not ours.
      const declared = declaredFields(metatype);
      for (const key of Object.keys(plain)) if (!declared.has(key) || INHERITED_NAMES.has(key)) delete plain[key];
    }
    const inherited = inheritedNameIn(plain);
    if (inherited) throw new ApiError('invalid_request', `${inherited.join('.')} is not an accepted field.`, inherited.join('.'));
    const freeForm = Object.hasOwn(plain, FREE_FORM) ? plain[FREE_FORM] : undefined;
    delete plain[FREE_FORM];
    const instance = plainToInstance(metatype, plain, { enableImplicitConversion: false }) as Record<string, unknown>;
    if (freeForm !== undefined) instance[FREE_FORM] = freeForm;
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
