import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional } from 'class-validator';
import { INVOICE_METHODS, INVOICE_PARAMS_SCHEMA } from '@payments/contracts';
import { ExpiresIn, SessionParamsDto } from '../session-routes/session-params.dto';
import { schemaProperty } from '../validation/schema-property';


/** The invoice create body; unknown top-level fields are rejected on this surface (DESIGN §5). */
export class CreateInvoiceDto extends SessionParamsDto {
  @ApiPropertyOptional(schemaProperty(INVOICE_PARAMS_SCHEMA.properties.methods))
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(INVOICE_METHODS.length)
  @ArrayUnique({ message: 'methods must not repeat a method.' })
  @IsIn(INVOICE_METHODS, { each: true, message: 'methods must each be one of wallet, lahza, crypto.' })
  methods?: Array<(typeof INVOICE_METHODS)[number]>;

  @ExpiresIn(86400)
  expires_in?: number;
}
