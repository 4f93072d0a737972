import { ApiPropertyOptional } from '@nestjs/swagger';
import { REFUND_PARAMS_SCHEMA } from '@payments/contracts';
import { MAX_PAYMENT_CENTS, parseMoneyString } from '@payments/money';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { IsMoneyString } from '../validation/is-money-string.validator';
import { schemaProperty } from '../validation/schema-property';

const FIELDS = REFUND_PARAMS_SCHEMA.properties;
const cents = (value: string) => {
  const parsed = parseMoneyString(value, { minCents: 0, maxCents: MAX_PAYMENT_CENTS });
  if (!parsed.ok) throw new Error(`refund amount bound ${value} ${parsed.message}`);
  return parsed.cents;
};
/** The schema's bounds (a refund goes down to a cent), so the gateway and the refunds service agree. */
const AMOUNT_BOUNDS = { minCents: cents(FIELDS.amount['x-money'].min), maxCents: cents(FIELDS.amount['x-money'].max) };

/** Body of POST /api/v1/payments/{id}/refunds (no other field is accepted). */
export class CreateRefundDto {
  @ApiPropertyOptional(schemaProperty(FIELDS.amount))
  @IsOptional()
  @IsMoneyString(AMOUNT_BOUNDS)
  amount?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.reason))
  @IsOptional()
  @IsString()
  @MinLength(FIELDS.reason.minLength)
  @MaxLength(FIELDS.reason.maxLength)
  reason?: string;
}
