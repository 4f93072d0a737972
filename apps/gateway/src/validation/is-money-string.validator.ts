import { MoneyBounds, parseMoneyString } from '@payments/money';
import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * A MoneyString (the spec's pattern: decimal dollars, at most two decimals) within bounds; by default
 * 0.50 to 999999.99 (DESIGN §5 Money). Refunds and the like pass their own bounds.
 */
export function IsMoneyString(bounds: MoneyBounds = {}, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isMoneyString',
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [bounds],
      options,
      validator: {
        validate: (value: unknown) => parseMoneyString(value, bounds).ok,
        defaultMessage: (args: ValidationArguments) => {
          const result = parseMoneyString(args.value, bounds);
          return `${args.property} ${result.ok ? 'is not a valid amount' : result.message}`;
        },
      },
    });
  };
}
