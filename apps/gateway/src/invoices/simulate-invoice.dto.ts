import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SIMULATE_INVOICE_PARAMS_SCHEMA } from '@payments/contracts';
import { IsIn, IsOptional } from 'class-validator';
import { schemaProperty } from '../validation/schema-property';

const FIELDS = SIMULATE_INVOICE_PARAMS_SCHEMA.properties;

export class SimulateInvoiceDto {
  @ApiProperty(schemaProperty(FIELDS.result))
  @IsIn(FIELDS.result.enum, { message: 'result must be paid, failed or expired.' })
  result!: (typeof FIELDS.result.enum)[number];

  @ApiPropertyOptional(schemaProperty(FIELDS.method))
  @IsOptional()
  @IsIn(FIELDS.method.enum, { message: 'method must be one of wallet, lahza, crypto.' })
  method?: (typeof FIELDS.method.enum)[number];
}
