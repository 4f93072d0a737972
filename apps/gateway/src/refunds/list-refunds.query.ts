import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ListLimit } from '../validation/list-limit.decorator';

export const PAYMENT_ID = /^[1-9][0-9]{0,18}$/;
export const REFUND_ID = /^re_[A-Za-z0-9]{24}$/;

/** Query of GET /api/v1/payments: newest first, `starting_after` pages on. */
export class ListPaymentsQuery {
  @ListLimit(10)
  limit?: number;

  @ApiPropertyOptional({ type: String, pattern: PAYMENT_ID.source, description: 'id of the last payment of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(PAYMENT_ID, { message: 'starting_after must be a payment id.' })
  starting_after?: string;
}

/** Query of GET /api/v1/refunds: newest first, optionally of one payment. */
export class ListRefundsQuery {
  @ListLimit(10)
  limit?: number;

  @ApiPropertyOptional({ type: String, pattern: REFUND_ID.source, description: 'id of the last refund of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(REFUND_ID, { message: 'starting_after must be a refund id (re_…).' })
  starting_after?: string;

  @ApiPropertyOptional({ type: String, pattern: PAYMENT_ID.source, description: 'only the refunds of this payment' })
  @IsOptional()
  @IsString()
  @Matches(PAYMENT_ID, { message: 'payment_id must be a payment id.' })
  payment_id?: string;
}
