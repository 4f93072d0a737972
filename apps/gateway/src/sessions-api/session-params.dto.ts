import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsHttpsUrl } from '../validation/is-https-url.validator';
import { IsMetadata } from '../validation/is-metadata.validator';
import { IsMoneyString } from '../validation/is-money-string.validator';
import { NestedObject } from '../validation/nested-object.decorator';
import { CustomerDto } from './customer.dto';

export const MONEY_STRING_PATTERN = '^\\d+(?:\\.\\d{1,2})?$';

/** Fields payment intents and invoices share (spec request table and Limits; DESIGN §5 money and metadata). */
export class SessionParamsDto {
  @ApiProperty({ type: String, pattern: MONEY_STRING_PATTERN, example: '74.00', description: 'decimal USD, 0.50 to 999999.99' })
  @IsMoneyString()
  amount!: string;

  @ApiProperty({ enum: ['USD'] })
  @IsIn(['USD'], { message: 'currency must be USD.' })
  currency!: 'USD';

  @ApiPropertyOptional({ maxLength: 120 })
  @IsOptional()
  @IsString()
  @MaxLength(120)
  external_ref?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  description?: string;

  @ApiPropertyOptional({ format: 'uri', pattern: '^https://' })
  @IsOptional()
  @IsHttpsUrl()
  success_url?: string;

  @ApiPropertyOptional({ format: 'uri', pattern: '^https://' })
  @IsOptional()
  @IsHttpsUrl()
  cancel_url?: string;

  @ApiPropertyOptional({ type: CustomerDto })
  @IsOptional()
  @NestedObject(() => CustomerDto)
  customer?: CustomerDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'up to 50 keys of at most 40 characters; string values up to 500' })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

export function ExpiresIn(defaultSeconds: number): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: 'integer', minimum: 300, maximum: 86400, default: defaultSeconds, description: 'seconds' })(target, key);
    IsOptional()(target, key);
    IsInt({ message: 'expires_in must be an integer number of seconds.' })(target, key);
    Min(300)(target, key);
    Max(86400)(target, key);
  };
}
