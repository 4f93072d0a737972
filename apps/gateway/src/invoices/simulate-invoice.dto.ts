import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { INVOICE_METHODS } from './create-invoice.dto';

export class SimulateInvoiceDto {
  @ApiProperty({ enum: ['paid', 'failed', 'expired'] })
  @IsIn(['paid', 'failed', 'expired'], { message: 'result must be paid, failed or expired.' })
  result!: 'paid' | 'failed' | 'expired';

  @ApiPropertyOptional({ enum: INVOICE_METHODS, default: 'wallet' })
  @IsOptional()
  @IsIn(INVOICE_METHODS, { message: 'method must be one of wallet, lahza, crypto.' })
  method?: (typeof INVOICE_METHODS)[number];
}
