import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { expiresInSchema, SESSION_PARAMS_PROPERTIES } from '@payments/contracts';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsHttpsUrl } from '../validation/is-https-url.validator';
import { IsMetadata } from '../validation/is-metadata.validator';
import { IsMoneyString } from '../validation/is-money-string.validator';
import { NestedObject } from '../validation/nested-object.decorator';
import { schemaProperty } from '../validation/schema-property';
import { CustomerDto } from './customer.dto';

const FIELDS = SESSION_PARAMS_PROPERTIES;

/** Fields payment intents and invoices share (spec request table and Limits; DESIGN §5 money and metadata). */
export class SessionParamsDto {
  @ApiProperty(schemaProperty(FIELDS.amount))
  @IsMoneyString()
  amount!: string;

  @ApiProperty(schemaProperty(FIELDS.currency))
  @IsIn(FIELDS.currency.enum, { message: 'currency must be USD.' })
  currency!: 'USD';

  @ApiPropertyOptional(schemaProperty(FIELDS.external_ref))
  @IsOptional()
  @IsString()
  @MaxLength(FIELDS.external_ref.maxLength)
  external_ref?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.description))
  @IsOptional()
  @IsString()
  @MaxLength(FIELDS.description.maxLength)
  description?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.success_url))
  @IsOptional()
  @IsHttpsUrl()
  success_url?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.cancel_url))
  @IsOptional()
  @IsHttpsUrl()
  cancel_url?: string;

  @ApiPropertyOptional({ type: CustomerDto })
  @IsOptional()
  @NestedObject(() => CustomerDto)
  customer?: CustomerDto;

  @ApiPropertyOptional(schemaProperty(FIELDS.metadata))
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}

/** expires_in with the surface's default, its bounds from the schema. */
export function ExpiresIn(defaultSeconds: number): PropertyDecorator {
  const schema = expiresInSchema(defaultSeconds);
  return (target, key) => {
    ApiPropertyOptional(schemaProperty(schema))(target, key);
    IsOptional()(target, key);
    IsInt({ message: 'expires_in must be an integer number of seconds.' })(target, key);
    Min(schema.minimum)(target, key);
    Max(schema.maximum)(target, key);
  };
}
