import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** A list's `limit` query parameter: an integer from 1 to 100, optional (the route applies its default). */
export function ListLimit(defaultLimit: number): PropertyDecorator {
  const message = 'limit must be an integer from 1 to 100.';
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: defaultLimit }),
    IsOptional(),
    // Query values are strings; only plain digits become a number (no implicit conversion of "1e2" or " 5").
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value)),
    IsInt({ message }),
    Min(1, { message }),
    Max(100, { message }),
  );
}
