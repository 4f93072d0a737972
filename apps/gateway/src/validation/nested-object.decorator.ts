import { applyDecorators, Type as ClassType } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested, ValidationOptions } from 'class-validator';

/**
 * A nested DTO field (e.g. `customer`): must be a JSON object (not an array), converted to `type` and
 * validated with it; the nested DTO rejects fields it does not declare.
 */
export function NestedObject(type: () => ClassType<unknown>, options?: ValidationOptions): PropertyDecorator {
  return applyDecorators(IsObject(options), ValidateNested(options), Type(type));
}
