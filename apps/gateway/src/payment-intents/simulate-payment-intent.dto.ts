import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { INTENT_METHODS } from './create-payment-intent.dto';

export class SimulatePaymentIntentDto {
  @ApiProperty({ enum: ['succeeded', 'failed'] })
  @IsIn(['succeeded', 'failed'], { message: 'result must be succeeded or failed.' })
  result!: 'succeeded' | 'failed';

  @ApiPropertyOptional({ enum: INTENT_METHODS, description: 'defaults to the first available method' })
  @IsOptional()
  @IsIn(INTENT_METHODS, { message: 'method must be one of togo, lahza, crypto.' })
  method?: (typeof INTENT_METHODS)[number];
}
