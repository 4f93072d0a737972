import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SIMULATE_PAYMENT_INTENT_PARAMS_SCHEMA } from '@payments/contracts';
import { IsIn, IsOptional } from 'class-validator';
import { schemaProperty } from '../validation/schema-property';

const FIELDS = SIMULATE_PAYMENT_INTENT_PARAMS_SCHEMA.properties;

export class SimulatePaymentIntentDto {
  @ApiProperty(schemaProperty(FIELDS.result))
  @IsIn(FIELDS.result.enum, { message: 'result must be succeeded or failed.' })
  result!: (typeof FIELDS.result.enum)[number];

  @ApiPropertyOptional(schemaProperty(FIELDS.method))
  @IsOptional()
  @IsIn(FIELDS.method.enum, { message: 'method must be one of togo, lahza, crypto.' })
  method?: (typeof FIELDS.method.enum)[number];
}
