import { ApiPropertyOptional } from '@nestjs/swagger';
import { CUSTOMER_SCHEMA, isEmailFormat } from '@payments/contracts';
import { IsOptional, IsString, Matches, MaxLength, ValidateBy } from 'class-validator';
import { schemaProperty } from '../validation/schema-property';

const FIELDS = CUSTOMER_SCHEMA.properties;

/** The spec's Customer: every field optional, no extra properties (the validation pipe rejects them). */
export class CustomerDto {
  @ApiPropertyOptional(schemaProperty(FIELDS.name))
  @IsOptional()
  @IsString()
  @MaxLength(FIELDS.name.maxLength)
  name?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.email))
  @IsOptional()
  @IsString()
  @MaxLength(FIELDS.email.maxLength)
  // The schema's own format (sessions checks the same): class-validator's IsEmail refused addresses it takes.
  @ValidateBy({ name: 'isEmail', validator: { validate: isEmailFormat, defaultMessage: (args) => `${args?.property ?? 'email'} must be an email` } })
  email?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.phone))
  @IsOptional()
  @IsString()
  @MaxLength(FIELDS.phone.maxLength)
  phone?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.city))
  @IsOptional()
  @IsString()
  @MaxLength(FIELDS.city.maxLength)
  city?: string;

  @ApiPropertyOptional(schemaProperty(FIELDS.country))
  @IsOptional()
  @IsString()
  @Matches(new RegExp(FIELDS.country.pattern), { message: 'customer.country must be a two-letter country code.' })
  country?: string;
}
