import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional } from 'class-validator';
import { ExpiresIn, SessionParamsDto } from '../sessions-api/session-params.dto';

/** Invoice methods: a service-balance payment is `wallet` here (`togo` is accepted as its other name). */
export const INVOICE_METHODS = ['wallet', 'togo', 'lahza', 'crypto'] as const;

/** The invoice create body; unknown top-level fields are rejected on this surface (DESIGN §5). */
export class CreateInvoiceDto extends SessionParamsDto {
  @ApiPropertyOptional({ type: [String], enum: INVOICE_METHODS, uniqueItems: true })
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
