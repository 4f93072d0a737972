import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** The spec's Customer: every field optional, no extra properties (the validation pipe rejects them). */
export class CustomerDto {
  @ApiPropertyOptional({ maxLength: 160 })
  @IsOptional()
  @IsString()
  @MaxLength(160)
  name?: string;

  @ApiPropertyOptional({ format: 'email', maxLength: 254 })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email?: string;

  @ApiPropertyOptional({ description: 'free text, international format', maxLength: 40 })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  phone?: string;

  @ApiPropertyOptional({ maxLength: 120 })
  @IsOptional()
  @IsString()
  @MaxLength(120)
  city?: string;

  @ApiPropertyOptional({ description: 'two-letter country code', minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'customer.country must be a two-letter country code.' })
  country?: string;
}
